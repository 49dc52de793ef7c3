// Memory of a long run in the browser: the built app in headless Chromium (Debian's)
// loads netperf UDP_RR on Skylake stretched to about ten million events, goes to
// the end of the run (End on the Playhead: every event handled, the trace, the
// wait log and the snapshots kept as when playing), and prints the engine's wasm
// memory (`window.__schedlab.wasmBytes`, its high-water mark) and the page's
// JavaScript heap.
// Usage: node scripts/memory-bench.mjs [DURATION_MS]   (after scripts/build.sh; 1250 by default)
import { launchChromium, serveApp } from './browser.mjs';

const PORT = 4393;
const durationMs = Number(process.argv[2] ?? 1250);

const server = await serveApp(PORT);
const browser = await launchChromium(['--enable-precise-memory-info', '--js-flags=--expose-gc']);
const idle = (page) => page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 600_000 });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await idle(page);
  await page.getByRole('combobox', { name: 'Scenario' }).selectOption('netperf-udp-rr-skylake');
  await idle(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const text = await editor.inputValue();
  const stretched = text.replace(/"duration_ms": *\d+/, `"duration_ms": ${durationMs}`);
  if (stretched === text && !text.includes(`"duration_ms": ${durationMs}`)) throw new Error('memory-bench: no duration_ms in the scenario text');
  await editor.fill(stretched);
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await idle(page);
  // The page's heap before the run is played: held objects only (a collection first).
  const heapBefore = await page.evaluate(() => {
    window.gc?.();
    return performance.memory?.usedJSHeapSize ?? 0;
  });
  const started = Date.now();
  await page.getByRole('slider', { name: 'Playhead' }).focus();
  await page.keyboard.press('End');
  await idle(page);
  const seconds = (Date.now() - started) / 1000;
  const figures = await page.evaluate(async () => {
    const garbage = performance.memory?.usedJSHeapSize ?? 0;
    // Two full collections a moment apart: array buffers' memory is freed after the
    // collection that finds them dead, so one collection can leave some counted.
    window.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 500));
    window.gc?.();
    return {
      events: window.__schedlab?.events ?? 0,
      wasmBytes: window.__schedlab?.wasmBytes ?? 0,
      jsHeapWithGarbage: garbage,
      jsHeap: performance.memory?.usedJSHeapSize ?? 0,
      switches: window.__schedlab?.timeline?.switches ?? 0,
      waitChanges: window.__schedlab?.timeline?.waitChanges ?? 0,
      storeBytes: window.__schedlab?.timeline?.storeBytes?.() ?? 0,
    };
  });
  const clock = await page.getByTestId('sim-time').textContent();
  const mb = (bytes) => (bytes / 1e6).toFixed(1);
  console.log(
    `memory (netperf-udp-rr-skylake, duration_ms ${durationMs}, to the end in ${seconds.toFixed(1)} s): ${figures.events} events, ` +
      `the engine's wasm memory ${mb(figures.wasmBytes)} MB, the page's JS heap ${mb(figures.jsHeap)} MB held after a collection ` +
      `(${mb(heapBefore)} MB before the run was played; ${mb(figures.jsHeapWithGarbage)} MB before the collection) (${clock?.replace(/^t = /, '')}); ` +
      `the timeline holds ${figures.switches} switches and ${figures.waitChanges} changes of waiting counts in ${mb(figures.storeBytes)} MB`,
  );
} finally {
  await browser.close();
  server.kill();
}
