/** The main thread's handle on the engine worker. */
import * as Comlink from 'comlink';
import type { Engine } from './worker';

export type EngineClient = Comlink.Remote<Engine>;

/** What a controller needs to notice a failed engine and start a fresh one. */
export interface EngineLifecycle {
  /** Calls `listener` when the current worker stops on an error it did not catch (each worker at most once). */
  onFailure(listener: (message: string) => void): void;
  /** Stops the current worker, whatever it is doing, and starts a fresh one: its client. */
  restart(): EngineClient;
}

/** The engine worker, restartable: a worker that failed or hangs is replaced by a fresh one. */
export class EngineWorker implements EngineLifecycle {
  private worker: Worker;
  private listeners: ((message: string) => void)[] = [];
  client: EngineClient;

  constructor() {
    this.worker = this.spawn();
    this.client = Comlink.wrap<Engine>(this.worker);
  }

  onFailure(listener: (message: string) => void): void {
    this.listeners.push(listener);
  }

  restart(): EngineClient {
    this.client[Comlink.releaseProxy]();
    this.worker.terminate();
    this.worker = this.spawn();
    this.client = Comlink.wrap<Engine>(this.worker);
    return this.client;
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'schedlab-engine' });
    let failed = false;
    const fail = (message: string) => {
      if (failed || worker !== this.worker) return;
      failed = true;
      for (const listener of this.listeners) listener(message);
    };
    // An error nothing in the worker caught (a call's own errors come back as its rejection).
    worker.addEventListener('error', (event) => {
      event.preventDefault();
      fail(event.message || 'the engine worker stopped on an error');
    });
    worker.addEventListener('messageerror', () => fail('a message from the engine worker could not be read'));
    return worker;
  }
}
