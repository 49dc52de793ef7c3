// How long a re-run takes in the browser, from the click to the page idle again:
// the struct layout lab's cgroup tree (a tree of 9 leaves under quotas on the
// teaching machine, 100 ms), played to its end, then its layout switched between
// Original and Reordered, each switch a re-run from the same seed carried back to
// the playhead. Prints each switch's wall time and their median, min and max.
// Headless Chromium (Debian's), the built app (web/dist).
// Usage: node scripts/rerun-bench.mjs [--rounds N]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { launchChromium, serveApp } from './browser.mjs';

const { values: options } = parseArgs({ options: { rounds: { type: 'string', default: '6' } } });
const rounds = Number(options.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rerun-bench: --rounds takes a whole number of at least 1, not "${options.rounds}"`);

// The Playwright lab test's scenario.
const SCENARIO = readFileSync(new URL('../e2e/fixtures/cgroup-tree-small.json', import.meta.url), 'utf8');

const PORT = 4393;
const server = await serveApp(PORT);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const idle = async () => {
    // A click's work starts on the page's next task: look for idle after it.
    await page.waitForTimeout(20);
    await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
  };
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await idle();
  await page.getByRole('textbox', { name: 'Scenario JSON' }).fill(SCENARIO);
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await idle();
  const lab = page.getByRole('region', { name: 'Struct layout lab' });
  await lab.getByRole('button', { name: 'Run to the end' }).click();
  await idle();
  const times = [];
  for (let round = 0; round < rounds; round++) {
    const layout = round % 2 === 0 ? 'Reordered' : 'Original';
    const started = Date.now();
    await lab.getByRole('radio', { name: layout }).check();
    await idle();
    const ms = Date.now() - started;
    const at = await page.getByTestId('sim-time').textContent();
    if (!at?.includes('0.100000')) throw new Error(`rerun-bench: after switching to ${layout} the playhead is at "${at}", not the run's end`);
    times.push(ms);
    console.log(`switch to ${layout}: ${ms} ms`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`re-run of the lab's cgroup tree to its end: ${sorted[Math.floor(sorted.length / 2)]} ms (median of ${times.length}; ${sorted[0]}..${sorted.at(-1)})`);
} finally {
  await browser.close();
  server.kill();
}
