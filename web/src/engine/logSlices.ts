// A plain log `File` as a sequence of byte slices, for the engine worker's `openLog`.
// The slices are read on a thread of their own (`sliceReader.ts`) and transferred,
// so the engine worker spends its time parsing. Where a worker cannot be started,
// the slices are read in place, the next one while this one is parsed.
import type { SliceReaderReply, SliceReaderRequest } from './sliceReaderProtocol';

export interface Slices {
  /** The next slice in file order, or `undefined` after the last; throws when the file cannot be read. */
  next(): Promise<Uint8Array | undefined>;
  /** Stops reading (cancel, or after an error); later calls to `next` are not allowed. */
  stop(): void;
}

/** Slices read in place, one ahead. */
export function slicesInPlace(file: Blob, sliceBytes: number, from = 0): Slices {
  const total = file.size;
  const sliceAt = (at: number) => file.slice(at, Math.min(total, at + sliceBytes)).arrayBuffer();
  let at = from;
  let pending = at < total ? sliceAt(at) : undefined;
  return {
    async next() {
      if (!pending) return undefined;
      const slice = new Uint8Array(await pending);
      at += slice.byteLength;
      pending = at < total && slice.byteLength > 0 ? sliceAt(at) : undefined;
      return slice;
    },
    stop() {
      pending = undefined;
    },
  };
}

/** At most this many slices are read and not yet taken. */
const AHEAD = 2;

/** A reader that finished its last file, kept to serve the next one at once. */
let idleReader: Worker | undefined;

/** Slices read by a worker of their own, falling back to `slicesInPlace` if it cannot start. */
export function slices(file: Blob, sliceBytes: number): Slices {
  let worker: Worker;
  try {
    worker = idleReader ?? new Worker(new URL('./sliceReader.ts', import.meta.url), { type: 'module', name: 'schedlab-log-reader' });
    idleReader = undefined;
  } catch {
    return slicesInPlace(file, sliceBytes);
  }
  const replies: SliceReaderReply[] = [];
  let waiting: ((reply: SliceReaderReply) => void) | undefined;
  let taken = 0;
  let fallback: Slices | undefined;
  let ended = false;
  const deliver = (reply: SliceReaderReply) => {
    const wake = waiting;
    waiting = undefined;
    if (wake) wake(reply);
    else replies.push(reply);
  };
  const end = (keep: boolean) => {
    if (ended) return;
    ended = true;
    worker.onmessage = null;
    worker.onerror = null;
    if (keep && !idleReader) idleReader = worker;
    else worker.terminate();
  };
  worker.onmessage = (event: MessageEvent<SliceReaderReply>) => deliver(event.data);
  worker.onerror = (event) => {
    event.preventDefault();
    deliver({ kind: 'error', message: event.message || 'the log reader stopped' });
  };
  const request = (message: SliceReaderRequest) => worker.postMessage(message);
  request({ kind: 'start', file, sliceBytes, ahead: AHEAD });
  return {
    async next() {
      if (fallback) return fallback.next();
      const reply = replies.shift() ?? (await new Promise<SliceReaderReply>((resolve) => (waiting = resolve)));
      if (reply.kind === 'slice') {
        taken += reply.buffer.byteLength;
        request({ kind: 'more' });
        return new Uint8Array(reply.buffer);
      }
      // The whole file was read: the reader is free for the next one.
      end(reply.kind === 'done');
      if (reply.kind === 'done') return undefined;
      if (taken === 0) {
        // The reader never got going (no worker in this context): read here instead.
        fallback = slicesInPlace(file, sliceBytes);
        return fallback.next();
      }
      throw new Error(reply.message);
    },
    stop() {
      // Stopped before the end (cancel): slices may still be on their way.
      end(false);
      fallback?.stop();
    },
  };
}
