import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test('clicking a wakeup in the event log explains its CPU choice in the Inspector', async ({ page }) => {
  await openApp(page);
  const log = page.getByRole('list', { name: 'Recent scheduler events' });
  // A schbench wakeup (a kworker may run only on its own CPU: nothing to inspect).
  const wakeups = log.getByRole('button', { name: /\bsched_wakeup comm=/ }).filter({ hasNotText: 'kworker' });
  // Step one event at a time until the log shows one.
  for (let steps = 0; steps < 400 && (await wakeups.count()) === 0; steps++) {
    await page.getByRole('button', { name: 'Step' }).click();
    await waitIdle(page);
  }
  const row = wakeups.first();
  const text = (await row.textContent()) ?? '';
  const target = Number(/target_cpu=(\d+)/.exec(text)?.[1]);
  expect(Number.isInteger(target)).toBe(true);

  await row.click();
  await waitIdle(page);
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector.getByTestId('chosen-cpu')).toContainText(`CPU ${target} chosen`);
  await expect(row).toHaveAttribute('aria-pressed', 'true');
  // At least one CPU inspected, shown as a chip with what it was.
  const inspected = inspector.getByRole('list', { name: /^CPUs step \d+ inspected, in order$/ }).getByRole('listitem');
  expect(await inspected.count()).toBeGreaterThan(0);
  await expect(inspected.first()).toHaveText(/^CPU \d+ (busy|idle|idle core|not allowed)/);
  await expect(inspector.locator(`.chip-chosen[data-cpu="${target}"]`)).toBeVisible();
  // The task's allowed CPUs (all 8 here) are outlined on the machine, the chosen one ringed.
  const machine = page.locator('svg[data-testid="machine"]');
  await expect(machine.locator('g.cpu.allowed')).toHaveCount(8);
  await expect(machine.locator('g.cpu.chosen')).toHaveAttribute('data-cpu', String(target));

  // From the keyboard: Enter on a switch says it is not a decision the inspector explains.
  const switchRow = log.getByRole('button', { name: /\bsched_switch prev_comm=/ }).first();
  await switchRow.focus();
  await page.keyboard.press('Enter');
  await waitIdle(page);
  await expect(inspector).toContainText('sched_switch event is not a placement decision');
});
