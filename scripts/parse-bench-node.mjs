// The WebAssembly ftrace parser under Node, with the log already in memory: the
// same `LogReader.feed` the engine worker calls, in 4 MiB pieces, so this figure
// has no file reading and no browser in it. Prints each run's MB/s, then the
// median and range of the warm runs (every run after the first).
// Usage: node scripts/parse-bench-node.mjs FILE [RUNS] [PKG_DIR]   (after scripts/build.sh;
// PKG_DIR, another wasm-pack output to time instead of web/wasm-pkg)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const file = process.argv[2];
const runs = Number(process.argv[3] ?? 6);
if (!file || !(runs >= 2)) {
  console.error('usage: node scripts/parse-bench-node.mjs FILE [RUNS >= 2]');
  process.exit(2);
}
const pkg = process.argv[4] ?? `${root}web/wasm-pkg`;
const { initSync, LogReader } = await import(`${pkg}/sched_wasm.js`);
initSync({ module: readFileSync(`${pkg}/sched_wasm_bg.wasm`) });

const bytes = readFileSync(file);
const PIECE = 4 * 1024 * 1024;
const speeds = [];
for (let run = 1; run <= runs; run += 1) {
  const reader = new LogReader();
  const started = performance.now();
  for (let at = 0; at < bytes.length; at += PIECE) {
    reader.feed(bytes.subarray(at, Math.min(at + PIECE, bytes.length)));
  }
  const seconds = (performance.now() - started) / 1000;
  reader.free();
  const rate = bytes.length / 1e6 / seconds;
  console.log(`wasm parse (node), run ${run}${run === 1 ? ' (cold)' : ''}: ${(bytes.length / 1e6).toFixed(0)} MB in ${seconds.toFixed(3)} s, ${rate.toFixed(0)} MB/s`);
  if (run > 1) speeds.push(rate);
}
speeds.sort((a, b) => a - b);
console.log(
  `wasm parse (node): ${speeds[Math.floor(speeds.length / 2)].toFixed(0)} MB/s (${speeds[0].toFixed(0)}..${speeds[speeds.length - 1].toFixed(0)}), median of ${speeds.length} warm runs`,
);
