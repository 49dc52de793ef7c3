import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('switching SHARED_RUNQ off in the Policy panel re-runs without the shard lock and lists the change', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'shared-runq-schbench-pipe-skylake');
  const policy = page.getByRole('region', { name: 'Policy' });
  const lockStat = page.getByRole('region', { name: 'Lock stat' });
  const shardRow = lockStat.locator('tr.lock-class[data-class="&shard->lock"]');
  await expect(policy.getByTestId('policy-kernel')).toContainText('kernel 6.5');
  await expect(policy.getByTestId('policy-diff')).toContainText('Every setting is as in the scenario file.');
  // Grouped by patch series, each switch explained by the schema.
  await expect(policy.locator('fieldset[data-group="seed-000"] legend')).toContainText('SHARED_RUNQ');
  await expect(policy.locator('fieldset[data-group="seed-001"] legend')).toContainText('series 001');
  await expect(policy.getByRole('checkbox', { name: 'wake_affine.enabled' })).toBeChecked();
  const mode = policy.getByRole('combobox', { name: 'shared_runq.mode' });
  await expect(mode).toHaveValue('all');
  await expect(mode).toHaveAccessibleDescription(/Where tasks are pushed into the shared runqueue/);

  // Play a little: the shard lock is taken.
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(async () => Number((await shardRow.locator('[data-column="acquisitions"]').textContent())?.replaceAll(',', ''))).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);

  const time = await page.getByTestId('sim-time').textContent();
  expect(time).not.toContain('t = 0.000000 s');
  await mode.selectOption('off');
  await waitIdle(page);
  await expect(mode).toHaveValue('off');
  // The same scenario re-run from time 0 to the same playhead, without SHARED_RUNQ: no shard lock, no lanes.
  await expect(page.getByTestId('sim-time')).toHaveText(time ?? '');
  await expect(shardRow).toHaveCount(0);
  await expect(lockStat.locator('tr.lock-class[data-class="&rq->__lock"]')).toHaveCount(1);
  await expect(page.locator('svg[data-testid="machine"] g.lane')).toHaveCount(0);
  const changed = policy.getByRole('list', { name: 'Settings changed from the scenario file' });
  await expect(changed.getByRole('listitem')).toHaveText(['shared_runq.mode "off" (file: "all")']);
  await expect(policy.locator('li[data-path="policy.shared_runq.mode"]')).toContainText('changed');
  await expect(policy.getByTestId('policy-diff')).toContainText('schedlab run shared-runq-schbench-pipe-skylake --set policy.shared_runq.mode=off');

  // It plays, and Reset keeps the setting.
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(async () => Number((await lockStat.locator('tr.lock-class[data-class="&rq->__lock"] [data-column="acquisitions"]').textContent())?.replaceAll(',', ''))).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  await page.getByRole('button', { name: 'Reset', exact: true }).click();
  await waitIdle(page);
  await expect(page.getByTestId('sim-time')).toContainText('t = 0.000000 s');
  await expect(mode).toHaveValue('off');
  await expect(shardRow).toHaveCount(0);

  // Back to the file.
  await policy.getByRole('button', { name: 'Reset to the scenario file' }).click();
  await waitIdle(page);
  await expect(mode).toHaveValue('all');
  await expect(shardRow).toHaveCount(1);
  await expect(policy.getByTestId('policy-diff')).toContainText('Every setting is as in the scenario file.');
});
