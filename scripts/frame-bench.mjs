// The app's frame times in headless Chromium (Debian's): the 512-CPU Zen4 preset
// running hackbench (16 groups) at 1x (faster than the engine runs there: it plays
// flat out), scrolled so the timeline
// is in view under the machine, in FRAME_BENCH_ROUNDS fresh pages (default 3) of
// FRAME_BENCH_SECONDS each (default 10, after a first second not counted): the
// intervals between animation frames (pooled), and the main thread's busy time per
// frame; then, traced for FRAME_BENCH_TRACE_SECONDS more (default 4), each frame's
// own work on the main thread: the tasks that start between one BeginMainThreadFrame
// and the next, summed (script, worker messages, style, layout, paint; tracing's
// overhead included, so it errs high). The intervals cannot fall under the display's
// 16.7 ms; a frame's work is what has to fit in them. With the time to the first
// frame and the bundles' gzip sizes.
// Run by `npm run bench` after the app is built; prints one line a figure.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { loadPlayingScenario } from './frame-page.mjs';
import { launchChromium, serveApp } from './browser.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const PORT = 4391;
const SECONDS = Number(process.env.FRAME_BENCH_SECONDS ?? 10);
const TRACE_SECONDS = Number(process.env.FRAME_BENCH_TRACE_SECONDS ?? 4);

/** The value at `share` (0 to 1) of `values` in ascending order (`1`: the largest). */
const quantile = (values, share) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];
};
/** The percentage of `values` above `limit`, to one decimal. */
const percentOver = (values, limit) => ((100 * values.filter((value) => value > limit).length) / values.length).toFixed(1);

/**
 * Each frame's main-thread work from a Chromium trace: the renderer main thread's
 * top-level tasks summed between consecutive BeginMainThreadFrame marks, in ms.
 */
function frameWork(traceBuffer) {
  const parsed = JSON.parse(String(traceBuffer));
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const main = events.find((event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain');
  if (!main) throw new Error('frame-bench: the trace has no renderer main thread');
  const onMain = events.filter((event) => event.pid === main.pid && event.tid === main.tid);
  const marks = onMain.filter((event) => event.name === 'BeginMainThreadFrame').map((event) => event.ts).sort((a, b) => a - b);
  const tasks = onMain.filter((event) => event.ph === 'X' && event.name === 'ThreadControllerImpl::RunTask').sort((a, b) => a.ts - b.ts);
  const work = [];
  let next = 0;
  for (let frame = 0; frame + 1 < marks.length; frame++) {
    let sum = 0;
    while (next < tasks.length && tasks[next].ts < marks[frame]) next++;
    for (let at = next; at < tasks.length && tasks[at].ts < marks[frame + 1]; at++) sum += tasks[at].dur;
    work.push(sum / 1000);
  }
  if (work.length < 10) throw new Error(`frame-bench: only ${work.length} frames traced`);
  const gaps = marks.slice(1).map((at, i) => (at - marks[i]) / 1000);
  return { work, gaps };
}

// Bundle sizes: every JS and wasm file of the build, gzip level 9.
const assets = `${root}web/dist/assets`;
let js = 0;
let wasm = 0;
for (const name of readdirSync(assets)) {
  const bytes = readFileSync(`${assets}/${name}`);
  if (name.endsWith('.js')) js += gzipSync(bytes, { level: 9 }).length;
  if (name.endsWith('.wasm')) wasm += gzipSync(bytes, { level: 9 }).length;
}
console.log(`bundle: JS ${(js / 1024).toFixed(0)} KiB gzip (all workers included), wasm ${(wasm / 1024).toFixed(0)} KiB gzip (${(statSync(`${assets}/${readdirSync(assets).find((name) => name.endsWith('.wasm'))}`).size / 1024).toFixed(0)} KiB raw)`);

const server = await serveApp(PORT);
const ROUNDS = Number(process.env.FRAME_BENCH_ROUNDS ?? 3);
const browser = await launchChromium();
try {
  const intervals = [];
  const busyPerFrame = [];
  const rates = [];
  const work = [];
  const tracedGaps = [];
  for (let round = 0; round < ROUNDS; round++) {
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    const started = Date.now();
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
    if (round === 0) console.log(`first frame: ${Date.now() - started} ms from navigation to the default scenario drawn and idle`);

    await loadPlayingScenario(page);
    await page.evaluate(() => {
      const frames = [];
      window.__frames = frames;
      let last = performance.now();
      const tick = (now) => {
        frames.push(now - last);
        last = now;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    // The main thread's own work (script, style, layout, paint, ...), from the
    // DevTools protocol's task durations, divided by the frames drawn.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const taskSeconds = async () => (await cdp.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0;
    const before = await page.evaluate(() => window.__schedlab?.events ?? 0);
    await page.getByRole('button', { name: 'Play', exact: true }).click();
    await page.waitForTimeout(1000);
    const skipped = await page.evaluate(() => window.__frames.length);
    const busyBefore = await taskSeconds();
    await page.waitForTimeout(SECONDS * 1000);
    const busyAfter = await taskSeconds();
    const frames = await page.evaluate((skip) => window.__frames.slice(skip), skipped);
    const after = await page.evaluate(() => window.__schedlab?.events ?? 0);
    const sim = await page.getByTestId('sim-time').textContent();
    intervals.push(...frames);
    busyPerFrame.push(((busyAfter - busyBefore) * 1000) / frames.length);
    rates.push((after - before) / (SECONDS + 1) / 1e6);
    await browser.startTracing(page, { categories: ['toplevel', 'disabled-by-default-devtools.timeline.frame'] });
    await page.waitForTimeout(TRACE_SECONDS * 1000);
    const { work: traced, gaps } = frameWork(await browser.stopTracing());
    if (!(await page.getByRole('button', { name: 'Pause', exact: true }).isVisible())) throw new Error('frame-bench: the run finished before the measurement did: its frames would include idle ones');
    tracedGaps.push(...gaps);
    work.push(...traced);
    console.log(
      `round ${round + 1}: ${frames.length} frames, p95 ${quantile(frames, 0.95).toFixed(1)} ms, ` +
        `main thread busy ${busyPerFrame.at(-1).toFixed(1)} ms a frame; traced ${traced.length} frames, work p95 ${quantile(traced, 0.95).toFixed(1)} ms; clock at ${sim?.replace(/^t = /, '')}`,
    );
    await page.close();
  }
  const at = (share) => quantile(intervals, share).toFixed(1);
  const workAt = (share) => quantile(work, share).toFixed(1);
  const median = (values) => quantile(values, 0.5);
  console.log(
    `frames (512 CPUs, hackbench 16 groups, 1x, ${ROUNDS} rounds of ${SECONDS} s): ${intervals.length} frames, p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms, ` +
      `${percentOver(intervals, 20)} % over 20 ms (a display refresh missed); ` +
      `main thread busy ${median(busyPerFrame).toFixed(1)} ms a frame (median of rounds; ${Math.min(...busyPerFrame).toFixed(1)}..${Math.max(...busyPerFrame).toFixed(1)}); ` +
      `${median(rates).toFixed(2)} M events/s in the browser`,
  );
  console.log(
    `frame work (main thread, traced ${ROUNDS} x ${TRACE_SECONDS} s): ${work.length} frames, p50 ${workAt(0.5)} ms, p95 ${workAt(0.95)} ms, max ${workAt(1)} ms, ` +
      `${percentOver(work, 16.7)} % over 16.7 ms; ${percentOver(tracedGaps, 20)} % of the traced frames over 20 ms apart`,
  );
} finally {
  await browser.close();
  server.kill();
}
