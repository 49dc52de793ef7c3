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
  let cancelled: (() => void) | undefined;
  return {
    run(request, onProgress) {
      worker ??= new Worker(new URL('./sweepWorker.ts', import.meta.url), { type: 'module', name: 'schedlab-sweep' });
      const remote = Comlink.wrap<Sweeper>(worker);
      return new Promise<SweepOutcome | undefined>((resolve, reject) => {
        cancelled = () => resolve(undefined);
        remote.sweep(request, Comlink.proxy(onProgress)).then(resolve, reject).finally(() => {
          cancelled = undefined;
        });
      });
    },
    cancel() {
      worker?.terminate();
      worker = undefined;
      cancelled?.();
      cancelled = undefined;
    },
  };
}
