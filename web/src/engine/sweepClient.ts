/** The main thread's handle on the sweep worker: started on first use, terminated to cancel. */
import * as Comlink from 'comlink';
import type { Sweeper } from './sweepWorker';
import type { SweepOutcome, SweepProgress, SweepRequest } from './sweepProtocol';

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
