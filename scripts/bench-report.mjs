// The last step of `npm run bench`: gathers the figures scripts/bench.sh left in
// DIR into one machine-readable JSON file, and (unless WRITE_DOCS is 0) rewrites
// the tables between the bench markers of docs/PERFORMANCE.md from it.
// Usage: node scripts/bench-report.mjs DIR OUT.json [WRITE_DOCS]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [dir, out, writeDocs = '1'] = process.argv.slice(2);
if (!dir || !out) {
  console.error('usage: node scripts/bench-report.mjs DIR OUT.json [WRITE_DOCS]');
  process.exit(2);
}
const text = (name) => (existsSync(`${dir}/${name}`) ? readFileSync(`${dir}/${name}`, 'utf8') : '');
const json = (name) => (existsSync(`${dir}/${name}`) ? JSON.parse(readFileSync(`${dir}/${name}`, 'utf8')) : null);
/** The numbers of the first line of `source` that `pattern` matches, or null. */
const grab = (source, pattern) => {
  const match = source.match(pattern);
  return match ? match.slice(1).map(Number) : null;
};

const native = text('native.jsonl')
  .trim()
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line));
const instructions = json('instructions.json');
const wasm = json('wasm.json');
const parse = grab(text('parse.txt'), /^parse: .* ([0-9.]+) MB\/s \(median of \d+; ([0-9.]+)\.\.([0-9.]+)\)/m);
const parseReplay = grab(text('parse.txt'), /^parse\+replay: .* ([0-9.]+) MB\/s \(median of \d+; ([0-9.]+)\.\.([0-9.]+)\)/m);
const parseNode = grab(text('parse-node.txt'), /^wasm parse \(node\): ([0-9.]+) MB\/s \(([0-9.]+)\.\.([0-9.]+)\)/m);
const parseChromium = grab(text('wasm-bench.txt'), /^wasm parse \(chromium\): ([0-9.]+) MB\/s \(([0-9.]+)\.\.([0-9.]+)\)/m);
const parseBrowser = grab(text('parse-browser.txt'), /read ([0-9.]+) MB\/s \(([0-9.]+)\.\.([0-9.]+)\), the parser's part ([0-9.]+) MB\/s \(([0-9.]+)\.\.([0-9.]+)\)/);
const frames = grab(text('frames.txt'), /p50 ([0-9.]+) ms, p95 ([0-9.]+) ms, max ([0-9.]+) ms, ([0-9.]+) % over 20 ms/);
const firstFrame = grab(text('frames.txt'), /first frame: (\d+) ms/);
const frameBusy = grab(text('frames.txt'), /main thread busy ([0-9.]+) ms a frame \(median of rounds; ([0-9.]+)\.\.([0-9.]+)\)/);
const frameRounds = grab(text('frames.txt'), /(\d+) rounds of (\d+) s/);
const frameWork = grab(text('frames.txt'), /frame work \(main thread, traced (\d+) x (\d+) s\): (\d+) frames, p50 ([0-9.]+) ms, p95 ([0-9.]+) ms, max ([0-9.]+) ms, ([0-9.]+) % over 16.7 ms; ([0-9.]+) % of the traced frames over 20 ms apart/);
const rerun = grab(text('rerun.txt'), /to its end: (\d+) ms \(median of (\d+); (\d+)\.\.(\d+)\)/);
const memoryLine = text('memory.txt');
const memory = grab(memoryLine, /: (\d+) events, the engine's wasm memory ([0-9.]+) MB, the page's JS heap ([0-9.]+) MB/);
const replayRuns = [...text('replay.txt').matchAll(/([0-9.]+) MB\/s/g)].map((match) => Number(match[1]));

const spread = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
};
const mbps = (figures) => (figures ? { median: figures[0], min: figures[1], max: figures[2] } : null);
const byLabel = (label) => native.find((row) => row.label === label);
const perEventRatio = (a, b) => (byLabel(a) && byLabel(b) ? byLabel(b).events_per_s.median / byLabel(a).events_per_s.median : null);

const report = {
  date: new Date().toISOString().slice(0, 10),
  machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? 'unknown', memory_gib: Math.round(totalmem() / 2 ** 30), arch: process.arch },
  native,
  ratios: {
    'hackbench wall time per event, 512 CPUs / 32 CPUs': perEventRatio('hackbench, 512 CPUs', 'hackbench, 32 CPUs'),
    'hackbench wall time per event, 10000 tasks / 120 tasks': perEventRatio('hackbench, 10000 tasks', 'hackbench, 120 tasks'),
    'cgroup tree wall time per event, 1056 groups / 110 groups (depth 2, about 3000 tasks, 256 CPUs)': perEventRatio('cgroup tree, 1056 groups (depth 2), 3072 tasks', 'cgroup tree, 110 groups (depth 2), 3000 tasks'),
    'cgroup tree wall time per event, depth 3 / depth 2 (1110 and 1056 groups, 256 CPUs)': perEventRatio('cgroup tree, 1110 groups (depth 3), 3000 tasks', 'cgroup tree, 1056 groups (depth 2), 3072 tasks'),
    ...Object.fromEntries(Object.entries(instructions?.ratios ?? {}).map(([what, value]) => [`instructions per event, ${what}`, value])),
  },
  instructions_per_event: instructions?.instructions_per_event ?? null,
  wasm: wasm?.cases ?? null,
  parser: {
    command: 'target/release/examples/parse_bench FILE --repeat 5; node scripts/parse-bench-node.mjs FILE 6; node scripts/wasm-bench.mjs --log FILE; node scripts/parse-bench.mjs FILE',
    log: 'schedlab run hackbench-7950x --set workloads.0.loops=1000 --trace-out FILE',
    native_mb_s: mbps(parse),
    native_with_replay_mb_s: mbps(parseReplay),
    replay_command_mb_s: spread(replayRuns),
    wasm_node_mb_s: mbps(parseNode),
    wasm_chromium_mb_s: mbps(parseChromium),
    browser_read_mb_s: parseBrowser ? { median: parseBrowser[0], min: parseBrowser[1], max: parseBrowser[2] } : null,
    browser_parser_mb_s: parseBrowser ? { median: parseBrowser[3], min: parseBrowser[4], max: parseBrowser[5] } : null,
  },
  memory: memory ? { command: 'node scripts/memory-bench.mjs', scenario: 'netperf-udp-rr-skylake, duration_ms 1250, played to its end', events: memory[0], wasm_mb: memory[1], js_heap_mb: memory[2] } : null,
  rerun: rerun ? { command: 'node scripts/rerun-bench.mjs', what: "the struct layout lab's cgroup tree (teaching-small, 100 ms) at its end, its layout switched: a re-run to the playhead", median_ms: rerun[0], rounds: rerun[1], min_ms: rerun[2], max_ms: rerun[3] } : null,
  frames: frames ? { command: 'node scripts/frame-bench.mjs', p50_ms: frames[0], p95_ms: frames[1], max_ms: frames[2], over_20ms_pct: frames[3], first_frame_ms: firstFrame?.[0] ?? null, main_thread_busy_ms: frameBusy ? { median: frameBusy[0], min: frameBusy[1], max: frameBusy[2] } : null, rounds: frameRounds?.[0] ?? null, seconds_per_round: frameRounds?.[1] ?? null, work_ms: frameWork ? { traced_seconds: frameWork[0] * frameWork[1], frames: frameWork[2], p50: frameWork[3], p95: frameWork[4], max: frameWork[5], over_16_7_pct: frameWork[6], traced_over_20ms_apart_pct: frameWork[7] } : null } : null,
};
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`bench: wrote ${out}`);

if (writeDocs === '0') process.exit(0);

// The tables for docs/PERFORMANCE.md.
const m = (x) => (x / 1e6).toFixed(2);
const range = (figure, format) => `${format(figure.median)} (${format(figure.min)}..${format(figure.max)})`;
const lines = [];
lines.push(`Made by \`npm run bench\` on ${report.date}: ${report.machine.cpus} CPUs (${report.machine.cpu_model}), ${report.machine.memory_gib} GiB, ${report.machine.arch}. Every figure of this section comes from that one run; \`bench.json\` has them all.`);
lines.push('');
lines.push('Simulation speed, natively (`schedlab bench`, the trace kept only as its hash), M events/s, median (min..max) of the runs:');
lines.push('');
lines.push('| case | command | CPUs | events | M events/s |');
lines.push('| --- | --- | --- | --- | --- |');
for (const row of native) lines.push(`| ${row.label} | \`${row.command}\` | ${row.cpus} | ${row.events.toLocaleString('en')} | ${range(row.events_per_s, m)} |`);
lines.push('');
lines.push('Ratios measured in this run (per-event cost; 1.0 is flat):');
lines.push('');
lines.push('| ratio | value |');
lines.push('| --- | --- |');
for (const [what, value] of Object.entries(report.ratios)) if (value !== null) lines.push(`| ${what} | ${value.toFixed(2)} |`);
if (report.instructions_per_event) {
  lines.push('');
  lines.push('Instructions per handled event (`bash scripts/perf-guard.sh`, callgrind inside `Simulator::step`):');
  lines.push('');
  lines.push('| case | events | instructions per event |');
  lines.push('| --- | --- | --- |');
  for (const [name, figure] of Object.entries(report.instructions_per_event)) lines.push(`| ${name} | ${figure.events.toLocaleString('en')} | ${figure.per_event.toFixed(0)} |`);
}
if (report.wasm) {
  lines.push('');
  lines.push('WebAssembly against native (`node scripts/wasm-bench.mjs --runs 5`: rounds of native, Node and Chromium in turn; the trace hashes agree), M events/s, median (min..max):');
  lines.push('');
  lines.push('| case | native | wasm, Node | wasm, Chromium | native / Node | native / Chromium |');
  lines.push('| --- | --- | --- | --- | --- | --- |');
  for (const row of report.wasm) lines.push(`| ${row.case} | ${range(row.native, m)} | ${range(row.node, m)} | ${range(row.chromium, m)} | ${row.native_over_node.toFixed(2)} | ${row.native_over_chromium.toFixed(2)} |`);
}
const p = report.parser;
lines.push('');
lines.push(`The ftrace parser on a schedlab-written hackbench log (\`${p.log}\`), MB/s, median (min..max):`);
lines.push('');
lines.push('| figure | MB/s |');
lines.push('| --- | --- |');
const mb = (x) => x.toFixed(0);
if (p.native_mb_s) lines.push(`| native, parse alone (\`parse_bench\`) | ${range(p.native_mb_s, mb)} |`);
if (p.native_with_replay_mb_s) lines.push(`| native, parse and replay (\`parse_bench\`) | ${range(p.native_with_replay_mb_s, mb)} |`);
if (p.replay_command_mb_s) lines.push(`| \`schedlab replay FILE --json\`, whole process | ${range(p.replay_command_mb_s, mb)} |`);
if (p.wasm_node_mb_s) lines.push(`| wasm under Node, the log in memory (\`scripts/parse-bench-node.mjs\`) | ${range(p.wasm_node_mb_s, mb)} |`);
if (p.wasm_chromium_mb_s) lines.push(`| wasm in a Chromium page, the log in memory (\`scripts/wasm-bench.mjs --log\`) | ${range(p.wasm_chromium_mb_s, mb)} |`);
if (p.browser_parser_mb_s) lines.push(`| Chromium, the parser's part of a warm open (\`scripts/parse-bench.mjs\`) | ${range(p.browser_parser_mb_s, mb)} |`);
if (p.browser_read_mb_s) lines.push(`| Chromium, the whole read of a warm open | ${range(p.browser_read_mb_s, mb)} |`);
if (report.frames) {
  lines.push('');
  const busy = report.frames.main_thread_busy_ms;
  const rounds = report.frames.rounds ? `: ${report.frames.rounds} fresh pages of ${report.frames.seconds_per_round} s, the intervals pooled` : '';
  lines.push(`Frames with 512 CPUs playing (\`node scripts/frame-bench.mjs\`${rounds}). Intervals between frames p50 ${report.frames.p50_ms} ms, p95 ${report.frames.p95_ms} ms, max ${report.frames.max_ms} ms, ${report.frames.over_20ms_pct} % over 20 ms (a display refresh missed)${busy ? `; the main thread busy ${busy.median} ms a frame (${busy.min}..${busy.max} over the rounds)` : ''}; first frame ${report.frames.first_frame_ms} ms.`);
  const work = report.frames.work_ms;
  if (work) lines.push(`Each frame's work on the main thread (traced for ${work.traced_seconds} s in all, tracing's overhead included): p50 ${work.p50} ms, p95 ${work.p95} ms, max ${work.max} ms; ${work.over_16_7_pct} % of frames over 16.7 ms of work, and ${work.traced_over_20ms_apart_pct} % of the traced frames over 20 ms apart.`);
}

if (report.rerun) {
  lines.push('');
  lines.push(`A re-run in the browser (\`node scripts/rerun-bench.mjs\`): ${report.rerun.what}, from the click to the page idle: ${report.rerun.median_ms} ms, median of ${report.rerun.rounds} (${report.rerun.min_ms}..${report.rerun.max_ms}).`);
}

if (report.memory) {
  lines.push('');
  lines.push(`Memory (\`node scripts/memory-bench.mjs\`): ${report.memory.scenario}, ${report.memory.events.toLocaleString('en')} events: the engine's wasm memory ${report.memory.wasm_mb} MB, the page's JavaScript heap ${report.memory.js_heap_mb} MB held (after two collections): ${(Number(report.memory.wasm_mb) + Number(report.memory.js_heap_mb)).toFixed(1)} MB together.`);
}

const docs = `${root}docs/PERFORMANCE.md`;
const BEGIN = '<!-- bench:begin (written by scripts/bench-report.mjs) -->';
const END = '<!-- bench:end -->';
const current = readFileSync(docs, 'utf8');
const start = current.indexOf(BEGIN);
const end = current.indexOf(END);
if (start < 0 || end < start) {
  console.error(`bench: ${docs} has no bench markers; its tables were not written`);
  process.exit(1);
}
writeFileSync(docs, `${current.slice(0, start + BEGIN.length)}\n${lines.join('\n')}\n${current.slice(end)}`);
console.log(`bench: wrote the tables in ${docs}`);
