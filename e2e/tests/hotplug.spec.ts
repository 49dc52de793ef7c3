import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('CPUs taken offline by hotplug are drawn as offline, not idle, and come back', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'numa-affinity-hotplug');
  const machine = page.locator('svg[data-testid="machine"]');
  const offline = machine.locator('g.cpu[data-offline="true"]');
  await expect(offline).toHaveCount(0);
  await expect(page.getByTestId('offline-legend')).toHaveCount(0);
  // CPUs 4-7 go offline at 1 ms and come back at 50 ms: at 1/100x that is 5 s of
  // play, time enough to pause in between on a loaded machine.
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/100×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect(offline).toHaveCount(4);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  await expect(offline).toHaveCount(4);
  expect(await offline.evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-cpu')))).toEqual(['4', '5', '6', '7']);
  await expect(offline.first().locator('title')).toHaveText('CPU 4: offline (hotplug)');
  await expect(machine.locator('g.cpu-text[data-cpu="4"] text.cpu-pid')).toHaveText('offline');
  await expect(page.getByTestId('offline-legend')).toHaveText('offline (hotplug): 4 CPUs');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect(offline).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByTestId('offline-legend')).toHaveCount(0);
});
