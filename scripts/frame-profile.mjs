// Where the page's main thread spends a playing frame: the 512-CPU hackbench of
// `scripts/frame-bench.mjs` (same page, same scenario, 1x, the timeline in view),
// traced for 4 s in headless Chromium (Debian's), then each step's total in those
// 4 s (`Paint`, `Layout`, `PrePaint`, `Layerize`, style, the tasks as a whole) and
// the p50 and p95 of the work per frame. For finding what to make cheaper, not a
// benchmark: `npm run bench` has the figures. Serves the built app (web/dist).
// Usage: node scripts/frame-profile.mjs [--css 'RULES'] (the rules are added to the
// page's first style sheet before Play, to try a style change without a build).
import { parseArgs } from 'node:util';
import { loadPlayingScenario } from './frame-page.mjs';
import { launchChromium, serveApp } from './browser.mjs';

const { values: options } = parseArgs({ options: { css: { type: 'string' } } });
const PORT = 4392;
const server = await serveApp(PORT);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
  await loadPlayingScenario(page);
  if (options.css) {
    // Through the CSSOM: the page's content security policy refuses a <style> element.
    await page.evaluate((css) => {
      const sheet = document.styleSheets[0];
      for (const rule of css.split('}').filter((text) => text.trim())) sheet.insertRule(`${rule}}`, sheet.cssRules.length);
    }, options.css);
  }
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForTimeout(2000);
  await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline.frame'] });
  await page.waitForTimeout(4000);
  const parsed = JSON.parse(String(await browser.stopTracing()));
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const main = events.find((event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain');
  if (!main) throw new Error('frame-profile: the trace has no renderer main thread');
  const onMain = events.filter((event) => event.pid === main.pid && event.tid === main.tid);
  const spans = onMain.filter((event) => event.ph === 'X');
  const total = (name) => Math.round(spans.filter((event) => event.name === name).reduce((sum, event) => sum + event.dur, 0) / 1000);
  const marks = onMain.filter((event) => event.name === 'BeginMainThreadFrame').map((event) => event.ts).sort((a, b) => a - b);
  const tasks = spans.filter((event) => event.name === 'ThreadControllerImpl::RunTask');
  const work = [];
  for (let frame = 0; frame + 1 < marks.length; frame++) {
    work.push(tasks.filter((task) => task.ts >= marks[frame] && task.ts < marks[frame + 1]).reduce((sum, task) => sum + task.dur, 0) / 1000);
  }
  work.sort((a, b) => a - b);
  const at = (share) => (work[Math.min(work.length - 1, Math.floor(work.length * share))] ?? 0).toFixed(1);
  console.log(`main thread in 4 s of play (ms): tasks ${total('ThreadControllerImpl::RunTask')}, Paint ${total('Paint')}, Layout ${total('Layout')}, PrePaint ${total('PrePaint')}, Layerize ${total('Layerize')}, style ${total('UpdateLayoutTree')}, script ${total('FunctionCall')}`);
  console.log(`work per frame: ${work.length} frames, p50 ${at(0.5)} ms, p95 ${at(0.95)} ms`);
} finally {
  await browser.close();
  server.kill();
}
