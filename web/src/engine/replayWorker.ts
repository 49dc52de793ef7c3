/// <reference lib="webworker" />
/**
 * The replay worker: reads a pasted ftrace log with its own copy of the wasm core
 * (`replay_log`, the parser and replay `schedlab replay` runs), so a large log
 * never blocks the page.
 */
import * as Comlink from 'comlink';
import init, { replay_log } from '../../wasm-pkg/sched_wasm.js';
import wasmUrl from '../../wasm-pkg/sched_wasm_bg.wasm?url';
import type { ReplayOutcome, ReplayResult } from '../store/replay';

let ready: Promise<unknown> | undefined;

const replayer = {
  async replay(text: string, preset: string, source: string): Promise<ReplayOutcome> {
    ready ??= init({ module_or_path: wasmUrl });
    await ready;
    try {
      return { ok: true, result: JSON.parse(replay_log(text, preset, source)) as ReplayResult };
    } catch (error) {
      return { ok: false, message: typeof error === 'string' ? error : error instanceof Error ? error.message : String(error) };
    }
  },
};

export type Replayer = typeof replayer;

Comlink.expose(replayer);
