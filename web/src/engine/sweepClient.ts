/** The main thread's handle on the sweep worker: started on first use, terminated to cancel. */
import * as Comlink from 'comlink';
import type { Sweeper } from './sweepWorker';
import type { SummaryOutcome, SweepOutcome, SweepProgress, SweepRequest } from './sweepProtocol';

export interface SweepRunner {
  /** Runs a sweep; resolves to `undefined` when it was cancelled. */
  run(request: SweepRequest, onProgress: (progress: SweepProgress) => void): Promise<SweepOutcome | undefined>;
  /** Stops the sweep in flight at once (its worker is terminated). */
  cancel(): void;
}

export function createSweepRunner(): SweepRunner {
  let worker: Worker | undefined;
  // One proxy per worker, kept as long as the worker: Comlink releases the worker's
  // side of the link when a proxy of it is garbage-collected, so a second `wrap` of
  // the same worker found its calls unanswered once the first proxy was collected.
  let remote: Comlink.Remote<Sweeper> | undefined;
  let cancelled: (() => void) | undefined;
  return {
    run(request, onProgress) {
      if (worker === undefined || remote === undefined) {
        worker = new Worker(new URL('./sweepWorker.ts', import.meta.url), { type: 'module', name: 'schedlab-sweep' });
        remote = Comlink.wrap<Sweeper>(worker);
      }
      const sweeper = remote;
      return new Promise<SweepOutcome | undefined>((resolve, reject) => {
        cancelled = () => resolve(undefined);
        sweeper.sweep(request, Comlink.proxy(onProgress)).then(resolve, reject).finally(() => {
          cancelled = undefined;
        });
      });
    },
    cancel() {
      worker?.terminate();
      worker = undefined;
      remote = undefined;
      cancelled?.();
      cancelled = undefined;
    },
  };
}

export interface SummaryRunner {
  /**
   * Runs scenario text to its end with `seed` in a worker of its own (keeping no
   * trace) and resolves to its summary; to `undefined` when a newer request or
   * `cancel` stopped it. One run at a time: a new request stops the one in flight.
   */
  summary(scenarioText: string, name: string, seed: number): Promise<SummaryOutcome | undefined>;
  cancel(): void;
}

/**
 * Whole runs for a summary, in a sweep worker of their own (not the Sweep panel's,
 * so a sweep and these never wait on each other or cancel each other).
 */
export function createSummaryRunner(): SummaryRunner {
  let worker: Worker | undefined;
  let remote: Comlink.Remote<Sweeper> | undefined;
  let stop: (() => void) | undefined;
  const cancel = () => {
    if (stop === undefined) return;
    // A run cannot be interrupted inside the core: its worker goes.
    worker?.terminate();
    worker = undefined;
    remote = undefined;
    stop();
    stop = undefined;
  };
  return {
    summary(scenarioText, name, seed) {
      cancel();
      if (worker === undefined || remote === undefined) {
        worker = new Worker(new URL('./sweepWorker.ts', import.meta.url), { type: 'module', name: 'schedlab-summary' });
        remote = Comlink.wrap<Sweeper>(worker);
      }
      const sweeper = remote;
      return new Promise<SummaryOutcome | undefined>((resolve, reject) => {
        const done = () => resolve(undefined);
        stop = done;
        sweeper.summary(scenarioText, name, seed).then(resolve, reject).finally(() => {
          if (stop === done) stop = undefined;
        });
      });
    },
    cancel,
  };
}
