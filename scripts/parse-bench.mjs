// Reading a log in the browser: the built app in headless Chromium (Debian's)
// opens FILE in its Replay panel, seven times in one page (the first cold, then
// warm), and prints the panel's own figures: the text's size, the streamed read
// and parse (MB/s), the whole open (report, what-if scenario, player) and the
// engine worker's wasm memory after the first open; then the median and range of
// the warm opens' read and parser speeds.
// Usage: [PARSE_BENCH_RUNS=N] node scripts/parse-bench.mjs FILE   (run by `npm run bench` after a build)
import { launchChromium, serveApp } from './browser.mjs';

const PORT = 4392;
const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/parse-bench.mjs FILE');
  process.exit(2);
}

const server = await serveApp(PORT);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
  const replay = page.getByRole('region', { name: 'Replay' });
  const runs = Number(process.env.PARSE_BENCH_RUNS ?? 7);
  const warm = { read: [], parser: [] };
  for (let run = 1; run <= runs; run += 1) {
    // Each open starts with the app at rest: the last open's first frames drawn.
    await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
    await page.waitForTimeout(1000);
    await replay.getByLabel('Open a log file').setInputFiles(file);
    await replay.getByRole('button', { name: 'Replay', exact: true }).click();
    const reading = replay.getByTestId('replay-reading');
    await reading.waitFor({ timeout: 600_000 });
    const text = (await reading.textContent()) ?? '';
    console.log(`browser replay, run ${run}${run === 1 ? ' (cold)' : ' (warm)'}: ${text.replace(/\s+/g, ' ').trim()}`);
    const speeds = [...text.matchAll(/([0-9.]+) MB\/s/g)].map((match) => Number(match[1]));
    if (run > 1 && speeds.length >= 2) {
      warm.read.push(speeds[0]);
      warm.parser.push(speeds[1]);
    }
    // The next run starts from an empty panel state.
    await replay.getByRole('textbox', { name: 'Paste ftrace log' }).fill('');
  }
  const summary = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${sorted[Math.floor(sorted.length / 2)]} MB/s (${sorted[0]}..${sorted[sorted.length - 1]})`;
  };
  if (warm.read.length > 0) {
    console.log(`browser replay, ${warm.read.length} warm opens: read ${summary(warm.read)}, the parser's part ${summary(warm.parser)} (median, min..max)`);
  }
} finally {
  await browser.close();
  server.kill();
}
