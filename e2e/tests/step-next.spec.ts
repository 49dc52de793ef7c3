import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test('Next decision stops at the next migration and the Inspector says why it happened', async ({ page }) => {
  await openApp(page);
  await page.getByRole('combobox', { name: 'Decision kind' }).selectOption('pull');
  await page.getByRole('button', { name: 'Next decision' }).click();
  await waitIdle(page);
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector).toContainText(/sched_migrate_task/);
  await expect(inspector).toContainText(/Why: CPU \d+ .*pulled pid \d+ from CPU \d+/);
  const first = await page.evaluate(() => window.__schedlab?.events ?? 0);
  expect(first).toBeGreaterThan(0);

  // A wakeup placement: explained step by step, with the CPUs it looked at.
  await page.getByRole('combobox', { name: 'Decision kind' }).selectOption('wakeup');
  await page.getByRole('button', { name: 'Next decision' }).click();
  await waitIdle(page);
  await expect(inspector.getByTestId('chosen-cpu')).toContainText(/CPU \d+ chosen/);
  expect(await page.evaluate(() => window.__schedlab?.events ?? 0)).toBeGreaterThan(first);
  // The log's selected line is that wakeup.
  await expect(page.getByRole('list', { name: 'Recent scheduler events' }).locator('[aria-pressed="true"]')).toContainText(/sched_wakeup/);
});

test('the main controls work from the keyboard alone, and ? lists every shortcut', async ({ page }) => {
  await openApp(page);
  const events = () => page.evaluate(() => window.__schedlab?.events ?? 0);
  // Pick a scenario with the keyboard: the keys work at once after it (the list lets go of them).
  const scenario = page.getByRole('combobox', { name: 'Scenario' });
  await scenario.focus();
  await scenario.selectOption('hackbench-7950x');
  await waitIdle(page);
  await expect(scenario).not.toBeFocused();
  await page.keyboard.press('.');
  await waitIdle(page);
  expect(await events()).toBe(1);
  await page.keyboard.press(' ');
  await expect.poll(events).toBeGreaterThan(100);
  await page.keyboard.press(' ');
  await waitIdle(page);
  await page.keyboard.press('r');
  await waitIdle(page);
  await expect(page.getByTestId('sim-time')).toContainText('t = 0.000000 s');
  await page.keyboard.press('n');
  await waitIdle(page);
  await expect(page.getByRole('region', { name: 'Inspector' })).toContainText('sched_migrate_task');

  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toBeVisible();
  for (const name of ['Play or pause', 'Step to the next scheduler event', 'Reset: start again from time 0', 'Faster', 'Slower']) await expect(dialog).toContainText(name);
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
});
