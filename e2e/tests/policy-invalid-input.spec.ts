import { expect, test } from '@playwright/test';
import { chooseScenario, eventCount, openApp, waitIdle } from './helpers';

test('an invalid shard_size is explained inline, the text is kept, and the last good run still plays', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'shared-runq-schbench-pipe-skylake');
  const policy = page.getByRole('region', { name: 'Policy' });
  const lanes = page.locator('svg[data-testid="machine"] g.lane');
  const shardSize = policy.getByRole('textbox', { name: 'shared_runq.shard_size' });
  await expect(shardSize).toHaveValue('6');

  await shardSize.fill('-1');
  await shardSize.press('Enter');
  await waitIdle(page);
  const error = policy.locator('li[data-path="policy.shared_runq.shard_size"] .policy-error');
  await expect(error).toContainText('policy.shared_runq.shard_size: must be at least 0, got -1');
  await expect(shardSize).toHaveValue('-1');
  await expect(shardSize).toHaveAttribute('aria-invalid', 'true');
  await expect(shardSize).toHaveAccessibleDescription(/must be at least 0, got -1/);
  await expect(policy.getByTestId('policy-diff')).toContainText('Every setting is as in the scenario file.');

  await shardSize.fill('abc');
  await shardSize.blur();
  await waitIdle(page);
  await expect(error).toContainText('policy.shared_runq.shard_size: expected an integer, got `abc`');
  await expect(shardSize).toHaveValue('abc');

  // The run loaded before the typing is still there, and plays.
  await expect(lanes).toHaveCount(6);
  const before = await eventCount(page);
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(() => eventCount(page)).toBeGreaterThan(before + 100);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  await expect(shardSize).toHaveValue('abc');

  // A valid size applies: 36 CPUs in shards of 12 is three shards.
  await shardSize.fill('12');
  await shardSize.press('Enter');
  await waitIdle(page);
  await expect(error).toHaveCount(0);
  await expect(lanes).toHaveCount(3);
  await expect(shardSize).toHaveValue('12');
  await expect(policy.getByRole('list', { name: 'Settings changed from the scenario file' })).toContainText('shared_runq.shard_size 12 (file: 6)');
});
