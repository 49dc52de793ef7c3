import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test('the Policy panel picks the kernel version and sets one of its paths, and the run follows', async ({ page }) => {
  await openApp(page);
  const policy = page.getByRole('region', { name: 'Policy' });
  const group = policy.locator('fieldset[data-group="kernel"]');
  const version = group.getByRole('combobox', { name: 'kernel' });
  const paths = group.getByTestId('kernel-paths');
  await expect(version).toHaveValue('6.5');
  // The version's paths are folded until asked for, and say they are as the version has them.
  await expect(paths).not.toHaveAttribute('open', '');
  await expect(paths.locator('summary')).toHaveText('The paths 6.5 selects (22) · all as 6.5 has them');
  await paths.locator('summary').click();
  const sisUtil = group.getByRole('checkbox', { name: 'SIS_UTIL' });
  await expect(sisUtil).toBeChecked();
  await expect(sisUtil).toHaveAccessibleDescription(/bound the idle-CPU scan by the LLC's utilisation/);
  await expect(group.getByTestId('policy-unused')).toHaveCount(0);
  await expect(group.getByRole('textbox', { name: 'busy_factor' })).toHaveValue('16');

  // One path off: the run re-runs with it, and the panel says how to do the same from the CLI.
  await sisUtil.click();
  await waitIdle(page);
  await expect(sisUtil).not.toBeChecked();
  const changed = policy.getByRole('list', { name: 'Settings changed from the scenario file' });
  await expect(changed.getByRole('listitem')).toHaveText(['SIS_UTIL false (file: true)']);
  await expect(policy.getByTestId('policy-diff')).toContainText('schedlab run teaching-small --set features.SIS_UTIL=false');
  await expect(paths.locator('summary')).toContainText('set differently: SIS_UTIL');

  // An older kernel: its paths become the defaults, and the run's decisions are made by it.
  await version.selectOption('4.6');
  await waitIdle(page);
  await expect(policy.getByTestId('policy-kernel')).toContainText('kernel 4.6 (chosen here)');
  await expect(group.getByRole('textbox', { name: 'busy_factor' })).toHaveValue('32');
  await expect(group.getByRole('combobox', { name: 'select_idle_sibling' })).toHaveValue('4.6');
  // 4.6's select_idle_sibling has no idle-CPU scan to bound: the scan's switches say they do nothing.
  await expect(group.locator('li[data-path="features.SIS_UTIL"]').getByTestId('policy-unused')).toHaveText(
    'Not taken while select_idle_sibling is 4.6: it matters only with select_idle_sibling 4.9 or 5.12.',
  );
  await expect(group.locator('li[data-path="features.busy_factor"]').getByTestId('policy-unused')).toHaveCount(0);
  await expect(policy.locator('fieldset[data-group="seed-000"]')).toContainText('Written against 6.5; this scenario runs 4.6.');
  await expect(changed.getByRole('listitem')).toHaveText(['kernel "4.6" (file: "6.5")']);
  await expect(policy.getByTestId('policy-diff')).toContainText('--set kernel=4.6');

  const log = page.getByRole('list', { name: 'Recent scheduler events' });
  const wakeups = log.getByRole('button', { name: /\bsched_wakeup comm=/ }).filter({ hasNotText: 'kworker' });
  for (let steps = 0; steps < 400 && (await wakeups.count()) === 0; steps++) {
    await page.getByRole('button', { name: 'Step' }).click();
    await waitIdle(page);
  }
  await wakeups.first().click();
  await waitIdle(page);
  await expect(page.getByRole('region', { name: 'Inspector' })).toContainText('kernel 4.6');
});
