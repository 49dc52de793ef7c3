import { expect, test } from '@playwright/test';
import { chooseScenario, openApp } from './helpers';

test('picking another scenario loads its machine', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'sis-schbench-t19');
  await expect(page.getByRole('heading', { name: 'xeon-2s10c: 40 CPUs' })).toBeVisible();
  await expect(page.locator('svg[data-testid="machine"] g.cpu')).toHaveCount(40);
  await expect(page.locator('svg[data-testid="machine"] g.socket')).toHaveCount(2);
});
