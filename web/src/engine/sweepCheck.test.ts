import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { initSync, sweep_plan } from '../../wasm-pkg/sched_wasm.js';
import { pointProblems, type Plan } from './sweepCheck';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const text = readFileSync(`${repo}scenarios/teaching-small.json`, 'utf8');
const plan = (vary: string[], seeds = '1'): Plan => JSON.parse(sweep_plan(text, JSON.stringify(vary), seeds)) as Plan;

describe('a sweep checked before it runs', () => {
  beforeAll(() => {
    initSync({ module: readFileSync(`${repo}web/wasm-pkg/sched_wasm_bg.wasm`) });
  });

  it('refuses a swept value the schema refuses, naming the point as the CLI does', () => {
    // `schedlab sweep teaching-small --vary knobs.hz=5,250 --seeds 1` says the same.
    expect(pointProblems(plan(['knobs.hz=5,250']))).toEqual(['point 0 (knobs.hz=5): knobs.hz: must be at least 100, got 5']);
  });

  it('says each problem once, and passes a sweep within bounds', () => {
    const problems = pointProblems(plan(['knobs.hz=5', 'workloads.0.worker_threads=2,3']));
    expect(problems).toEqual([
      'point 0 (knobs.hz=5 workloads.0.worker_threads=2): knobs.hz: must be at least 100, got 5',
      'point 1 (knobs.hz=5 workloads.0.worker_threads=3): knobs.hz: must be at least 100, got 5',
    ]);
    expect(pointProblems(plan(['knobs.hz=100,250,1000', 'workloads.0.worker_threads=2..4'], '1..2'))).toEqual([]);
  });

  it('names a bad seed list and a bad setting together, not one after the other', () => {
    let message = '';
    try {
      sweep_plan(text, JSON.stringify(['policy.nonexistent=1,2']), '5..1');
    } catch (error) {
      message = String(error);
    }
    const lines = message.split('\n');
    expect(lines.some((line) => line.startsWith('seeds: '))).toBe(true);
    expect(lines.some((line) => line.includes('policy.nonexistent'))).toBe(true);
  });

  it('names every vary line it cannot read', () => {
    let message = '';
    try {
      sweep_plan(text, JSON.stringify(['knobs.hz', 'kernel']), '1');
    } catch (error) {
      message = String(error);
    }
    expect(message.split('\n').filter((line) => line.startsWith('vary `'))).toHaveLength(2);
  });
});
