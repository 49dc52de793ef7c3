import { expect, test } from '@playwright/test';
import { cpuPids, eventCount, openApp, waitIdle } from './helpers';

test('the default scenario plays: CPUs change and the latency table fills', async ({ page }) => {
  await openApp(page);
  await expect(page.getByRole('heading', { name: 'teaching-small: 8 CPUs' })).toBeVisible();
  // The main parts, by the names screen readers and tests find them by.
  for (const region of ['Machine', 'Timeline', 'Inspector', 'Charts', 'Event log', 'Policy', 'Sweep', 'Replay']) {
    await expect(page.getByRole('region', { name: region, exact: true })).toBeVisible();
  }
  for (const button of ['Play', 'Step', 'Reset', 'Presenter mode', 'Compare', 'Share link', 'Export']) {
    await expect(page.getByRole('button', { name: button, exact: true })).toBeVisible();
  }
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Speed' })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Simulated time' })).toContainText('t = 0.000000 s / 2.000000 s');
  await expect(page.locator('svg[data-testid="machine"] g.cpu')).toHaveCount(8);
  await expect(page.getByTestId('latency-samples')).toHaveText('0');
  await expect(page.getByTestId('latency-unmeasured')).toHaveCount(0);
  // At time 0 the machine says what to press; once the run moves, the hint goes.
  await expect(page.getByTestId('start-hint')).toContainText('press Play (space) to watch it');
  const before = await cpuPids(page);
  const seen = new Set([before.join(',')]);

  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
  await expect(page.getByTestId('start-hint')).toHaveCount(0);
  // Sample the machine view while it plays: it must show more than one picture.
  await expect
    .poll(async () => {
      seen.add((await cpuPids(page)).join(','));
      return seen.size;
    })
    .toBeGreaterThan(3);
  await expect.poll(async () => Number((await page.getByTestId('latency-samples').textContent())?.replace(/,/g, ''))).toBeGreaterThan(20);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);

  const p50 = await page.getByTestId('latency-50.0th').textContent();
  const p99 = await page.getByTestId('latency-99.0th').textContent();
  expect(Number(p50?.replace(/,/g, ''))).toBeGreaterThan(0);
  expect(Number(p99?.replace(/,/g, ''))).toBeGreaterThanOrEqual(Number(p50?.replace(/,/g, '')));
  expect(await eventCount(page)).toBeGreaterThan(100);
  await expect(page.getByRole('list', { name: 'Recent scheduler events' }).locator('li').first()).toBeVisible();
});
