import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('STREAM reads its MB/s per kernel, as `schedlab run --json` does', async ({ page }) => {
  await openApp(page);
  const counters = page.getByRole('region', { name: 'Run so far' });
  await expect(counters.getByTestId('throughput')).toHaveText([/ requests\/s$/]);

  await chooseScenario(page, 'stream8-pinned-zen3');
  const figures = counters.getByTestId('throughput');
  await expect(figures).toHaveCount(4);
  await expect(counters.getByText('STREAM Copy (best)')).toBeVisible();

  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  // Every kernel has finished a pass: a number in MB/s, no longer a dash.
  for (let index = 0; index < 4; index++) {
    await expect(figures.nth(index)).toHaveText(/^[\d,]+\.\d MB\/s$/);
  }
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  await expect(counters).not.toContainText('phases/s');
});
