/// <reference lib="webworker" />
/**
 * The sweep worker: runs a sweep (`schedlab sweep`'s grid of settings over seeds)
 * with its own copy of the wasm core, so the playback worker stays free. The
 * points are planned and checked by the core (`sweep_plan`, the CLI's grammar),
 * each run goes to its end keeping no trace (`run_summary`), and each point's
 * runs are combined by the core (`spread_json`): the numbers are the CLI's.
 * Cancelling terminates the worker; nothing here needs to stop itself.
 */
import * as Comlink from 'comlink';
import init, { run_summary, spread_json, sweep_plan } from '../../wasm-pkg/sched_wasm.js';
import wasmUrl from '../../wasm-pkg/sched_wasm_bg.wasm?url';
import type { SummaryOutcome, SweepOutcome, SweepPoint, SweepProgress, SweepRequest } from './sweepProtocol';
import { pointProblems, type Plan } from './sweepCheck';

let ready: Promise<unknown> | undefined;

function message(error: unknown): string {
  return typeof error === 'string' ? error : error instanceof Error ? error.message : String(error);
}

const sweeper = {
  async sweep(request: SweepRequest, onProgress: (progress: SweepProgress) => void): Promise<SweepOutcome> {
    ready ??= init({ module_or_path: wasmUrl });
    await ready;
    let plan: Plan;
    try {
      plan = JSON.parse(sweep_plan(request.scenarioText, JSON.stringify(request.vary), request.seeds, request.maxRuns)) as Plan;
    } catch (error) {
      return { ok: false, problems: message(error).split('\n') };
    }
    const problems = pointProblems(plan);
    if (problems.length > 0) return { ok: false, problems };
    // Within `maxRuns`: `sweep_plan` refused a larger sweep before building its points.
    const total = plan.points.length * plan.seeds.length;
    const points: SweepPoint[] = [];
    let done = 0;
    onProgress({ done, total });
    for (const point of plan.points) {
      const text = JSON.stringify(point.scenario);
      const runs: string[] = [];
      for (const seed of plan.seeds) {
        try {
          runs.push(run_summary(text, request.name, seed));
        } catch (error) {
          return { ok: false, problems: [`point ${point.index} seed ${seed}: ${message(error)}`] };
        }
        done += 1;
        onProgress({ done, total });
      }
      const spread = JSON.parse(spread_json(`[${runs.join(',')}]`)) as Pick<SweepPoint, 'median' | 'min' | 'max'>;
      points.push({ index: point.index, set: point.set, ...spread, runs: runs.map((run) => JSON.parse(run) as SweepPoint['runs'][number]) });
    }
    return { ok: true, result: { seeds: plan.seeds, points } };
  },

  /**
   * One run of scenario text to its end with `seed`, keeping no trace: its summary
   * JSON as `schedlab run --json` prints it (the struct-layout lab's original
   * layout, run beside the one playing).
   */
  async summary(scenarioText: string, name: string, seed: number): Promise<SummaryOutcome> {
    ready ??= init({ module_or_path: wasmUrl });
    await ready;
    try {
      return { ok: true, summary: run_summary(scenarioText, name, seed) };
    } catch (error) {
      return { ok: false, message: message(error) };
    }
  },
};

export type Sweeper = typeof sweeper;

Comlink.expose(sweeper);
