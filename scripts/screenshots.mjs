// The README's and docs' screenshots of the main views, taken from the built app
// in headless Chromium (Debian's): `npm run screenshots` after `npm run build`.
// Each view is set up as a user would (pick a scenario, move the playhead, click),
// then captured to docs/screenshot.png and docs/screenshots/*.png.
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium, serveApp } from './browser.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const PORT = Number(process.env.SCREENSHOT_PORT ?? 4397);
const out = `${root}docs/screenshots`;
mkdirSync(out, { recursive: true });

const server = await serveApp(PORT);
const browser = await launchChromium(['--hide-scrollbars']);

/** A fresh page at `width` x `height`, the app loaded and idle. */
async function open(width, height, colorScheme = 'light') {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await idle(page);
  return page;
}

async function idle(page) {
  await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 300_000 });
}

/** Picks a bundled scenario and moves the playhead `tenths` tenths of the run on. */
async function scenarioAt(page, id, tenths) {
  await page.getByRole('combobox', { name: 'Scenario' }).selectOption(id);
  await idle(page);
  const slider = page.getByRole('slider', { name: 'Playhead' });
  await slider.focus();
  for (let step = 0; step < tenths; step++) {
    await page.keyboard.press('PageUp');
    await idle(page);
  }
}

/** Plays for `ms` of wall time at `speed`, then pauses. */
async function playFor(page, speed, ms) {
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: speed });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForTimeout(ms);
  await page.getByRole('button', { name: 'Pause' }).click();
  await idle(page);
}

async function shot(page, name, target) {
  const path = name === 'screenshot' ? `${root}docs/screenshot.png` : `${out}/${name}.png`;
  if (target) await target.screenshot({ path });
  else await page.screenshot({ path });
  console.log(`wrote ${path.slice(root.length)}`);
}

try {
  // The main view: SHARED_RUNQ's shards and the task moves on a 7950X.
  {
    const page = await open(1920, 1080);
    await scenarioAt(page, 'shared-runq-hackbench-7950x', 0);
    await playFor(page, '1/100×', 3000);
    await shot(page, 'screenshot');
    // The timeline with a task selected: click the widest run it drew.
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.scrollIntoViewIfNeeded();
    const sample = await page.evaluate(() => window.__schedlab?.timeline.sample);
    if (sample) await page.getByTestId('timeline-canvas').click({ position: { x: sample.x, y: sample.y } });
    await idle(page);
    await shot(page, 'timeline', timeline);
    await shot(page, 'charts', page.getByRole('region', { name: 'Charts' }));
    await page.close();
  }
  // A wakeup explained: the Inspector next to the machine with the CPUs inspected.
  {
    const page = await open(1920, 1080);
    const log = page.getByRole('list', { name: 'Recent scheduler events' });
    const wakeups = log.getByRole('button', { name: /\bsched_wakeup comm=/ }).filter({ hasNotText: 'kworker' });
    for (let steps = 0; steps < 400 && (await wakeups.count()) === 0; steps++) {
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await idle(page);
    }
    await wakeups.first().click();
    await idle(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'inspector');
    await page.close();
  }
  // Compare mode: wake_affine off in run B.
  {
    const page = await open(1920, 1080);
    await page.getByRole('button', { name: 'Compare' }).click();
    await idle(page);
    await page.getByRole('region', { name: 'Policy' }).getByRole('checkbox', { name: 'wake_affine.enabled' }).click();
    await idle(page);
    await playFor(page, '1/100×', 2500);
    await shot(page, 'compare');
    await page.close();
  }
  // 512 CPUs (the cells on a canvas), in the dark theme.
  {
    const page = await open(1920, 1080, 'dark');
    await scenarioAt(page, 'kcompile-milan', 0);
    const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
    const scenario = JSON.parse(await editor.inputValue());
    scenario.topology = { preset: 'zen4-2s128c' };
    scenario.workloads[0].jobs = 640;
    await editor.fill(JSON.stringify(scenario, null, 2));
    await page.getByRole('button', { name: 'Apply scenario' }).click();
    await idle(page);
    await playFor(page, '1/10×', 2500);
    await shot(page, 'large-machine-dark');
    await page.close();
  }
  // Presenter mode on a 1280x720 projector.
  {
    const page = await open(1280, 720);
    await scenarioAt(page, 'sis-schbench-t19-scan', 1);
    await page.getByRole('button', { name: 'Presenter mode' }).click();
    await playFor(page, '1/1000×', 1500);
    await shot(page, 'presenter-1280x720');
    await page.close();
  }
  // A log playing: a run of tbench exported as ftrace text, then opened in the Replay panel.
  {
    const page = await open(1440, 1000);
    await scenarioAt(page, 'tbench-milan', 0);
    await playFor(page, '1/100×', 2000);
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('menu', { name: 'Export' }).getByRole('menuitem', { name: 'Trace (ftrace text: Perfetto, trace-cmd, replay)' }).click();
    const log = await (await downloading).path();
    const replay = page.getByRole('region', { name: 'Replay' });
    await replay.getByLabel('Open a log file').setInputFiles({ name: 'tbench-milan.trace', mimeType: 'text/plain', buffer: readFileSync(log) });
    await replay.getByRole('button', { name: 'Replay', exact: true }).click();
    await replay.getByTestId('replay-playing').waitFor({ timeout: 300_000 });
    await idle(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await playFor(page, '1/1000×', 3000);
    await shot(page, 'replay');
    await replay.scrollIntoViewIfNeeded();
    await shot(page, 'replay-panel', replay);
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
