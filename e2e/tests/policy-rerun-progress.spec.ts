import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('a policy change says it is re-running to the playhead, and how far it is, until it gets there', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'shared-runq-schbench-pipe-skylake');
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '10×' });
  const play = page.getByRole('button', { name: 'Play', exact: true });
  await play.click();
  // Far enough that the re-run back to here takes a while (the catch-up is shown after a quarter second).
  await expect.poll(async () => page.evaluate(() => window.__schedlab?.events ?? 0), { timeout: 60_000 }).toBeGreaterThan(400_000);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  const time = (await page.getByTestId('sim-time').textContent()) ?? '';
  const target = /t = ([0-9.]+) s/.exec(time)?.[1];
  expect(target).toBeDefined();

  const policy = page.getByRole('region', { name: 'Policy' });
  await policy.getByRole('combobox', { name: 'shared_runq.mode' }).selectOption('off');
  // Both where the change was made and by the clock, while the run is carried back to the playhead.
  const note = `Re-running with the new setting to t = ${target} s`;
  await expect(policy.getByTestId('catching-up')).toContainText(note);
  await expect(page.getByRole('toolbar', { name: 'Simulation controls' }).getByTestId('catching-up')).toContainText(note);
  await expect(play).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Step' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Reset', exact: true })).toBeDisabled();
  // Then it is there, and says nothing more.
  await waitIdle(page);
  await expect(page.getByTestId('catching-up')).toHaveCount(0);
  await expect(page.getByTestId('sim-time')).toHaveText(time);
  await expect(play).toBeEnabled();
});
