/** The main thread's handle on the replay worker, started on first use. */
import * as Comlink from 'comlink';
import type { Replayer } from './replayWorker';

export type ReplayClient = Comlink.Remote<Replayer>;

export function createReplayClient(): () => ReplayClient {
  let client: ReplayClient | undefined;
  return () => {
    client ??= Comlink.wrap<Replayer>(new Worker(new URL('./replayWorker.ts', import.meta.url), { type: 'module', name: 'schedlab-replay' }));
    return client;
  };
}
