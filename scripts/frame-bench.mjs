// The app's frame times in headless Chromium (Debian's): the 512-CPU Zen4 preset
// running hackbench (16 groups) at the fastest speed (1x), scrolled so the timeline
// is in view under the machine, in FRAME_BENCH_ROUNDS fresh pages (default 3) of
// FRAME_BENCH_SECONDS each (default 10, after a first second not counted): the
// intervals between animation frames (pooled), and the main thread's busy time per
// frame; with the time to the first frame and the bundles' gzip sizes.
// Run by `npm run bench` after the app is built; prints one line a figure.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PORT = 4391;
const SECONDS = Number(process.env.FRAME_BENCH_SECONDS ?? 10);

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

const server = spawn(process.execPath, [`${root}scripts/serve.mjs`], { env: { ...process.env, PORT: String(PORT), STRICT_PORT: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve) => server.stdout.on('data', (chunk) => String(chunk).includes('running at') && resolve()));
const ROUNDS = Number(process.env.FRAME_BENCH_ROUNDS ?? 3);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] });
try {
  const intervals = [];
  const busyPerFrame = [];
  const rates = [];
  for (let round = 0; round < ROUNDS; round++) {
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    const started = Date.now();
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
    if (round === 0) console.log(`first frame: ${Date.now() - started} ms from navigation to the default scenario drawn and idle`);

    const text = readFileSync(`${root}scenarios/hackbench-7950x.json`, 'utf8');
    const scenario = JSON.parse(text);
    scenario.topology = { preset: 'zen4-2s128c' };
    scenario.workloads[0].groups = 16;
    await page.getByRole('textbox', { name: 'Scenario JSON' }).fill(JSON.stringify(scenario, null, 2));
    await page.getByRole('button', { name: 'Apply scenario' }).click();
    await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
    await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1×' });
    // The timeline in view (its bottom at the window's), the machine above it.
    await page.getByRole('region', { name: 'Timeline' }).evaluate((element) => element.scrollIntoView({ block: 'end' }));
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
    const sorted = [...frames].sort((a, b) => a - b);
    console.log(
      `round ${round + 1}: ${frames.length} frames, p95 ${sorted[Math.floor(sorted.length * 0.95)].toFixed(1)} ms, ` +
        `main thread busy ${busyPerFrame.at(-1).toFixed(1)} ms a frame; clock at ${sim?.replace(/^t = /, '')}`,
    );
    await page.close();
  }
  intervals.sort((a, b) => a - b);
  const at = (share) => intervals[Math.min(intervals.length - 1, Math.floor(intervals.length * share))].toFixed(1);
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `frames (512 CPUs, hackbench 16 groups, 1x, ${ROUNDS} rounds of ${SECONDS} s): ${intervals.length} frames, p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms, ` +
      `${((100 * intervals.filter((interval) => interval > 20).length) / intervals.length).toFixed(1)} % over 20 ms (a display refresh missed); ` +
      `main thread busy ${median(busyPerFrame).toFixed(1)} ms a frame (median of rounds; ${Math.min(...busyPerFrame).toFixed(1)}..${Math.max(...busyPerFrame).toFixed(1)}); ` +
      `${median(rates).toFixed(2)} M events/s in the browser`,
  );
} finally {
  await browser.close();
  server.kill();
}
