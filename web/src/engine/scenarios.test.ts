import { describe, expect, it } from 'vitest';
import { bundledScenarios, seriesOf } from './scenarios';

describe('the scenario picker', () => {
  it('puts every bundled scenario in its seed series, with its description', () => {
    for (const scenario of bundledScenarios) {
      expect(scenario.series, scenario.id).not.toBe('Other');
      expect(scenario.description.length, scenario.id).toBeGreaterThan(20);
    }
    const series = (id: string) => bundledScenarios.find((scenario) => scenario.id === id)?.series;
    expect(series('sis-schbench-t19')).toMatch(/^series 001/);
    expect(series('kcompile-milan')).toMatch(/^series 000/);
    expect(series('cgroup-d3w10')).toMatch(/^series 002/);
    expect(series('turbo-bench-power9')).toMatch(/^series 003/);
    expect(series('numa-affinity-hotplug')).toMatch(/^series 004/);
    expect(seriesOf('my-own', 'something')).toBe('Other');
  });
});
