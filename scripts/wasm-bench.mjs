// WebAssembly against native, per event: the same scenarios as `schedlab bench`
// (same settings, same seed, no trace kept but its hash), run natively, in the
// wasm build under Node and in the wasm build in headless Chromium (Debian's).
// Each figure is the median events/s of RUNS rounds (native, Node, Chromium in
// turn, after a second of warm-up runs of each wasm engine), with the range; the
// ratio is native / wasm, measured in this one run (machines are noisy: compare
// ratios).
// The trace hashes must agree, or the comparison is void and the script fails.
// With --log FILE it also times the ftrace parser in the same page, the log in
// memory (`LogReader.feed` in 4 MiB pieces, as scripts/parse-bench-node.mjs does
// under Node): the parser in Chromium without the app's file reading beside it.
// Usage: node scripts/wasm-bench.mjs [--runs N] [--json FILE] [--log FILE]
//   (after scripts/build.sh and `cargo build --release -p sched-cli`)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './browser.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: options } = parseArgs({ options: { runs: { type: 'string', default: '3' }, json: { type: 'string' }, log: { type: 'string' } } });
const RUNS = Number(options.runs);
const cli = `${root}target/release/schedlab`;
const pkg = `${root}web/wasm-pkg`;

/** The cases `scripts/bench.sh` times, as a scenario and its `--set` overrides. */
const CASES = [
  { name: 'teaching-small', scenario: 'teaching-small', set: [] },
  { name: 'sis-schbench-t19', scenario: 'sis-schbench-t19', set: [] },
  { name: 'hackbench, 32 CPUs', scenario: 'hackbench-7950x', set: ['workloads.0.loops=200'] },
  { name: 'hackbench, 512 CPUs', scenario: 'hackbench-7950x', set: ['topology.preset=zen4-2s128c', 'workloads.0.groups=16', 'workloads.0.loops=200'] },
];

const { initSync, BenchRun, sweep_plan } = await import(`${pkg}/sched_wasm.js`);
initSync({ module: readFileSync(`${pkg}/sched_wasm_bg.wasm`) });

/** The scenario with its overrides applied by the core (the sweep planner's `PATH=VALUE`). */
function resolved(testCase) {
  const text = readFileSync(`${root}scenarios/${testCase.scenario}.json`, 'utf8');
  if (testCase.set.length === 0) return text;
  const plan = JSON.parse(sweep_plan(text, JSON.stringify(testCase.set), '1', 1));
  const scenario = plan.points[0].scenario;
  // The sweep planner sets the seed per run; a bench run keeps the scenario's own.
  scenario.seed = JSON.parse(text).seed ?? scenario.seed;
  return JSON.stringify(scenario);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const spread = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

/**
 * Native runs (`schedlab bench --repeat 3`: three runs in one process, the first
 * with its memory still to be mapped, as a wasm engine's is not after warm-up):
 * events, the median rate and the hash.
 */
function native(testCase) {
  const args = ['bench', testCase.scenario, '--repeat', '3', '--json', ...testCase.set.flatMap((set) => ['--set', set])];
  const out = JSON.parse(execFileSync(cli, args, { encoding: 'utf8' }));
  return { events: out.events, hash: out.trace_hash, rate: out.events_per_s.median };
}

/**
 * One wasm run: `BenchRun.run` timed alone, as the CLI times `run_to_end`. The same
 * function runs under Node (given the class) and in the page (`page.evaluate` sends
 * its source, and the page's own class is the default).
 */
function timedRun(text, Bench = window.wasm.BenchRun) {
  const bench = new Bench(text);
  const started = performance.now();
  const events = bench.run();
  const seconds = (performance.now() - started) / 1000;
  const hash = bench.trace_hash();
  bench.free();
  return { events, hash, rate: events / seconds };
}

const node = (text) => timedRun(text, BenchRun);
const chromiumRun = (page, text) => page.evaluate(timedRun, text);

// Chromium: a bare page that imports the same wasm package, served from here.
const server = createServer((request, response) => {
  const path = new URL(request.url, 'http://localhost').pathname;
  if (path === '/') {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>wasm bench</title>');
    return;
  }
  if (path === '/log' && options.log) {
    response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(options.log));
    return;
  }
  const file = path.replace(/^\/pkg\//, '');
  if (!/^[\w.-]+$/.test(file)) {
    response.writeHead(404).end();
    return;
  }
  try {
    const body = readFileSync(`${pkg}/${file}`);
    const type = file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
    response.writeHead(200, { 'content-type': type }).end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await launchChromium();
const rows = [];
let mismatch = false;
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.evaluate(async () => {
    const wasm = await import('/pkg/sched_wasm.js');
    await wasm.default({ module_or_path: '/pkg/sched_wasm_bg.wasm' });
    window.wasm = wasm;
  });
  for (const testCase of CASES) {
    const text = resolved(testCase);
    // Warm-up runs, for at least a second each way, are not counted: V8 compiles
    // hot wasm functions again, optimised, in the background while they run.
    for (let warm = 0; warm < 1; ) {
      const run = node(text);
      warm += run.events / run.rate;
    }
    for (let warm = 0; warm < 1; ) {
      const run = await chromiumRun(page, text);
      warm += run.events / run.rate;
    }
    // Rounds of native, Node and Chromium in turn, so a machine that slows down
    // slows all three.
    const runs = { native: [], node: [], chromium: [] };
    for (let round = 0; round < RUNS; round += 1) {
      runs.native.push(native(testCase));
      runs.node.push(node(text));
      runs.chromium.push(await chromiumRun(page, text));
    }
    const nativeFigures = { events: runs.native[0].events, hash: runs.native[0].hash, events_per_s: spread(runs.native.map((run) => run.rate)) };
    const nodeFigures = { events: runs.node[0].events, hash: runs.node[0].hash, events_per_s: spread(runs.node.map((run) => run.rate)) };
    const chromiumFigures = { events: runs.chromium[0].events, hash: runs.chromium[0].hash, events_per_s: spread(runs.chromium.map((run) => run.rate)) };
    for (const [where, figures] of [['node', nodeFigures], ['chromium', chromiumFigures]]) {
      if (figures.hash !== nativeFigures.hash || figures.events !== nativeFigures.events) {
        console.error(`wasm-bench: ${testCase.name}: ${where} gave ${figures.events} events, hash ${figures.hash}; native ${nativeFigures.events}, ${nativeFigures.hash}`);
        mismatch = true;
      }
    }
    const row = {
      case: testCase.name,
      command: `schedlab bench ${testCase.scenario}${testCase.set.map((set) => ` --set ${set}`).join('')}`,
      events: nativeFigures.events,
      native: nativeFigures.events_per_s,
      node: nodeFigures.events_per_s,
      chromium: chromiumFigures.events_per_s,
      native_over_node: nativeFigures.events_per_s.median / nodeFigures.events_per_s.median,
      native_over_chromium: nativeFigures.events_per_s.median / chromiumFigures.events_per_s.median,
    };
    rows.push(row);
    const m = (figure) => `${(figure.median / 1e6).toFixed(2)} M/s (${(figure.min / 1e6).toFixed(2)}..${(figure.max / 1e6).toFixed(2)})`;
    console.log(
      `wasm-bench: ${row.case}: native ${m(row.native)}, node ${m(row.node)}, chromium ${m(row.chromium)}; native/wasm ${row.native_over_node.toFixed(2)}x (node), ${row.native_over_chromium.toFixed(2)}x (chromium)`,
    );
  }
  if (options.log) {
    // The parser in the page: seven reads of the log held in memory, the first cold.
    const rates = await page.evaluate(async () => {
      const bytes = new Uint8Array(await (await fetch('/log')).arrayBuffer());
      const piece = 4 << 20;
      const out = [];
      for (let run = 0; run < 7; run += 1) {
        const reader = new window.wasm.LogReader();
        const started = performance.now();
        for (let at = 0; at < bytes.length; at += piece) reader.feed(bytes.subarray(at, Math.min(at + piece, bytes.length)));
        out.push(bytes.length / 1e6 / ((performance.now() - started) / 1000));
        reader.free();
      }
      return out;
    });
    const warm = spread(rates.slice(1));
    console.log(`wasm parse (chromium): ${warm.median.toFixed(0)} MB/s (${warm.min.toFixed(0)}..${warm.max.toFixed(0)}), median of ${rates.length - 1} warm runs, the log in memory (cold ${rates[0].toFixed(0)})`);
  }
} finally {
  await browser.close();
  server.close();
}
if (options.json) writeFileSync(options.json, `${JSON.stringify({ runs: RUNS, cases: rows }, null, 2)}\n`);
process.exit(mismatch ? 1 : 0);
