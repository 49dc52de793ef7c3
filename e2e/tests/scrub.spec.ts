import { expect, test, type Page } from '@playwright/test';
import { cpuPids, openApp, waitIdle } from './helpers';

/** What the app shows at the playhead. */
async function state(page: Page) {
  return {
    time: await page.getByTestId('sim-time').textContent(),
    events: await page.getByTestId('event-count').textContent(),
    pids: await cpuPids(page),
    p99: await page.getByTestId('latency-99.0th').textContent(),
  };
}

test('scrubbing forward and back shows the same state at the same time', async ({ page }) => {
  await openApp(page);
  const slider = page.getByRole('slider', { name: 'Playhead' });
  await slider.focus();
  // PageUp: a tenth of the run further.
  await page.keyboard.press('PageUp');
  await waitIdle(page);
  const first = await state(page);
  expect(first.time).toContain('t = 0.200000 s');
  await page.keyboard.press('PageUp');
  await waitIdle(page);
  const second = await state(page);
  expect(second.time).toContain('t = 0.400000 s');
  expect(second.events).not.toBe(first.events);
  // Back: from a snapshot the engine took on the way (not a re-run from 0), the
  // same state as before at the same time.
  const timelineBefore = await page.evaluate(() => [window.__schedlab?.timeline.switches, window.__schedlab?.timeline.waitChanges]);
  await page.keyboard.press('PageDown');
  await waitIdle(page);
  expect(await state(page)).toEqual(first);
  const restored = await page.evaluate(() => window.__schedlab?.restoredFromNs);
  expect(restored).toBeGreaterThan(0);
  expect(restored).toBeLessThanOrEqual(200_000_000);
  // Forward again over the same stretch: the same state as the first time, timeline included.
  await page.keyboard.press('PageUp');
  await waitIdle(page);
  expect(await state(page)).toEqual(second);
  expect(await page.evaluate(() => [window.__schedlab?.timeline.switches, window.__schedlab?.timeline.waitChanges])).toEqual(timelineBefore);
  await page.keyboard.press('PageDown');
  await waitIdle(page);
  // The timeline's axis moves the playhead too.
  // The timeline's axis moves the playhead too: a click at the middle of the 40 ms window.
  const canvas = page.getByTestId('timeline-canvas');
  await expect(page.getByTestId('timeline-window')).toHaveText('0.160000 s to 0.200000 s (40.00 ms shown)');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no timeline');
  const plotLeft = 66;
  await canvas.click({ position: { x: plotLeft + (box.width - plotLeft) / 2, y: 8 } });
  await waitIdle(page);
  const time = Number(/t = ([\d.]+) s/.exec((await page.getByTestId('sim-time').textContent()) ?? '')?.[1]);
  expect(time).toBeGreaterThan(0.175);
  expect(time).toBeLessThan(0.185);
});
