// The app's frame times in headless Chromium (Debian's): the 512-CPU Zen4 preset
// running hackbench (16 groups) at the fastest speed (1x), scrolled so the timeline
// is in view under the machine, with the time to the first frame and the bundles' gzip sizes.
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
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] });
try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  const started = Date.now();
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
  console.log(`first frame: ${Date.now() - started} ms from navigation to the default scenario drawn and idle`);

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
  const before = await page.evaluate(() => window.__schedlab?.events ?? 0);
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForTimeout(SECONDS * 1000);
  const frames = await page.evaluate(() => window.__frames.slice(30));
  const after = await page.evaluate(() => window.__schedlab?.events ?? 0);
  const sim = await page.getByTestId('sim-time').textContent();
  frames.sort((a, b) => a - b);
  const at = (share) => frames[Math.min(frames.length - 1, Math.floor(frames.length * share))].toFixed(1);
  console.log(
    `frames (512 CPUs, hackbench 16 groups, 1x, ${SECONDS} s): ${frames.length} frames, p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms, ` +
      `${((100 * frames.filter((interval) => interval > 20).length) / frames.length).toFixed(1)} % over 20 ms (a display refresh missed); ` +
      `${((after - before) / SECONDS / 1e6).toFixed(2)} M events/s in the browser; clock at ${sim?.replace(/^t = /, '')}`,
  );
} finally {
  await browser.close();
  server.kill();
}
