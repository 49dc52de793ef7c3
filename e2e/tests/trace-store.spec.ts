import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('a run of six million trace records is kept whole: at its end the event log is current and no store is full', async ({ page }) => {
  await openApp(page);
  // tbench on 72 CPUs: 6.1 M trace records in its 1 s, three times what the store once held.
  await chooseScenario(page, 'tbench-milan');
  // End: the playhead to the end of the run.
  await page.getByRole('slider', { name: 'Playhead' }).focus();
  await page.keyboard.press('End');
  await waitIdle(page);
  await expect(page.getByTestId('sim-time')).toContainText('t = 1.000000 s / 1.000000 s');

  // The newest line is from the run's end, far past record 2,000,000.
  const log = page.getByRole('region', { name: 'Event log' });
  const newest = log.locator('button.ev-row').first();
  expect(Number(await newest.getAttribute('data-index'))).toBeGreaterThan(6_000_000);
  expect(Number(await newest.locator('.ev-time').textContent())).toBeGreaterThan(0.999);
  await expect(page.getByText('The trace store is full')).toHaveCount(0);
  // The frame reports the engine's wasm memory, which holds those records (at least 8 bytes each).
  expect(await page.evaluate(() => window.__schedlab?.wasmBytes ?? 0)).toBeGreaterThan(6_000_000 * 8);
});
