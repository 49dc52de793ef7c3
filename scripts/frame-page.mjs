// The page the frame scripts measure (`frame-bench.mjs`, `frame-profile.mjs`): the
// 512-CPU Zen4 preset running hackbench with 16 groups, loaded through the editor,
// at 1x (faster than the engine runs there: it plays flat out), scrolled so the
// timeline is in view under the machine.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Loads the measured scenario into `page` (the app already loaded and idle) and readies it to play. */
export async function loadPlayingScenario(page) {
  const scenario = JSON.parse(readFileSync(`${root}scenarios/hackbench-7950x.json`, 'utf8'));
  scenario.topology = { preset: 'zen4-2s128c' };
  scenario.workloads[0].groups = 16;
  // Long enough to be still running when a measurement ends (at about 0.01
  // simulated seconds a wall second here; 1,000 loops end at 0.074 s): frames
  // after the end would be idle ones. frame-bench.mjs checks it.
  scenario.workloads[0].loops = 20_000;
  await page.getByRole('textbox', { name: 'Scenario JSON' }).fill(JSON.stringify(scenario, null, 2));
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await page.waitForFunction(() => window.__schedlab?.idle === true, null, { timeout: 120_000 });
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1×' });
  // The timeline in view (its bottom at the window's), the machine above it.
  await page.getByRole('region', { name: 'Timeline' }).evaluate((element) => element.scrollIntoView({ block: 'end' }));
}
