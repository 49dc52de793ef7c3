import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { initSync, sweep_plan } from '../../wasm-pkg/sched_wasm.js';
import { pointProblems, type Plan } from './sweepCheck';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const text = readFileSync(`${repo}scenarios/teaching-small.json`, 'utf8');
const plan = (vary: string[], seeds = '1', maxRuns = 400): Plan => JSON.parse(sweep_plan(text, JSON.stringify(vary), seeds, maxRuns)) as Plan;
const refusal = (vary: string[], seeds = '1'): string => {
  try {
    sweep_plan(text, JSON.stringify(vary), seeds, 400);
  } catch (error) {
    return String(error);
  }
  return '';
};

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

  it('says a value the model refuses as the CLI says it: the schema\'s bound, not the type', () => {
    // `schedlab sweep teaching-small --vary duration_ms=-5,0`: "must be at least 1, got -5".
    expect(pointProblems(plan(['duration_ms=-5,0']))).toEqual([
      'point 0 (duration_ms=-5): duration_ms: must be at least 1, got -5',
      'point 1 (duration_ms=0): duration_ms: must be at least 1, got 0',
    ]);
  });

  it('refuses a sweep over the app\'s limit before building its points', () => {
    const started = performance.now();
    expect(refusal(['workloads.0.worker_threads=1..100000'])).toBe(
      'the sweep has 100000 runs (100000 points x 1 seed); the app runs at most 400: use schedlab sweep for more',
    );
    // Built point by point, this took minutes.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(refusal(['duration_ms=1..200'], '1..3')).toMatch(/^the sweep has 600 runs \(200 points x 3 seeds\)/);
    expect(plan(['duration_ms=1..200'], '1..2').points).toHaveLength(200);
  });

  it('names a range the wrong way round once, and an empty seed in words', () => {
    expect(refusal(['workloads.0.worker_threads=5..1'])).toBe('vary `workloads.0.worker_threads=5..1`: a range A..B needs A <= B, got 5..1');
    expect(refusal(['duration_ms=5'], '1,,3')).toBe('seeds: an empty item between commas is not a seed');
  });

  it('names a bad seed list and a bad setting together, not one after the other', () => {
    let message = '';
    try {
      sweep_plan(text, JSON.stringify(['policy.nonexistent=1,2']), '5..1', 400);
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
      sweep_plan(text, JSON.stringify(['knobs.hz', 'kernel']), '1', 400);
    } catch (error) {
      message = String(error);
    }
    expect(message.split('\n').filter((line) => line.startsWith('vary `'))).toHaveLength(2);
  });
});
