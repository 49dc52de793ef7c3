/// <reference lib="webworker" />
// Reads a plain log `File` in slices on its own thread and hands each slice to the
// engine worker that started it (transferred, not copied). Reading a `Blob` copies
// its bytes on the thread that asked, so the engine worker would otherwise spend
// about a third of a log's open copying instead of parsing. A few slices are read
// ahead, never more: the engine answers each one with `more` (see `logSlices.ts`).
// The first slice is small, so that parsing starts at once. One reader serves one
// file at a time and may be started again on another after `done`.
import type { SliceReaderReply, SliceReaderRequest } from './sliceReaderProtocol';

declare const self: DedicatedWorkerGlobalScope;

/** The first slice's size at most. */
const FIRST_SLICE_BYTES = 1 << 20;

let file: Blob | undefined;
let sliceBytes = 0;
let at = 0;
let credits = 0;
let reading = false;
let finished = false;

function post(reply: SliceReaderReply, transfer: Transferable[] = []): void {
  self.postMessage(reply, transfer);
}

async function pump(): Promise<void> {
  if (reading || finished || !file) return;
  reading = true;
  try {
    while (credits > 0 && at < file.size) {
      const end = Math.min(file.size, at + (at === 0 ? Math.min(FIRST_SLICE_BYTES, sliceBytes) : sliceBytes));
      const buffer = await file.slice(at, end).arrayBuffer();
      // A file that shrank since it was chosen ends here.
      at = buffer.byteLength > 0 ? end : file.size;
      credits -= 1;
      post({ kind: 'slice', buffer }, [buffer]);
    }
    if (at >= file.size) {
      finished = true;
      post({ kind: 'done' });
    }
  } catch (error) {
    finished = true;
    post({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  } finally {
    reading = false;
  }
}

self.onmessage = (event: MessageEvent<SliceReaderRequest>) => {
  const request = event.data;
  if (request.kind === 'start') {
    file = request.file;
    sliceBytes = request.sliceBytes;
    credits = request.ahead;
    at = 0;
    finished = false;
  } else {
    credits += 1;
  }
  void pump();
};
