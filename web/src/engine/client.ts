/** The main thread's handle on the engine worker. */
import * as Comlink from 'comlink';
import type { Engine } from './worker';

export type EngineClient = Comlink.Remote<Engine>;

export function startEngine(): EngineClient {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'schedlab-engine' });
  return Comlink.wrap<Engine>(worker);
}
