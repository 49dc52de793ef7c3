import { expect, test } from '@playwright/test';
import { eventCount, openApp, waitIdle } from './helpers';

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
  // n stops at the next decision of the kind chosen, by default a wakeup placement: explained step by step.
  await expect(page.getByRole('combobox', { name: 'Decision kind' })).toHaveValue('wakeup');
  await page.keyboard.press('n');
  await waitIdle(page);
  await expect(page.getByRole('region', { name: 'Inspector' }).getByTestId('chosen-cpu')).toContainText(/CPU \d+ chosen/);

  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toBeVisible();
  for (const name of ['Play or pause', 'Step to the next scheduler event', 'Reset: start again from time 0', 'Faster', 'Slower']) await expect(dialog).toContainText(name);
  // A modal: the page behind it is inert, so Tab never lands there (past the dialog's
  // last control it goes to the browser, then back), and no shortcut acts on it.
  for (let press = 0; press < 4; press++) {
    await page.keyboard.press('Tab');
    expect(await dialog.evaluate((element) => document.activeElement === document.body || element.contains(document.activeElement))).toBe(true);
  }
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await page.keyboard.press('t');
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', 'dark');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
});

test('Space and Enter on a focused button press that button, not the page\'s shortcut', async ({ page }) => {
  await openApp(page);
  const step = page.getByRole('button', { name: 'Step', exact: true });
  await step.focus();
  await page.keyboard.press(' ');
  await waitIdle(page);
  // One step, and not playing (Space is Play or pause elsewhere on the page).
  await expect(page.getByRole('button', { name: 'Play', exact: true })).toBeVisible();
  const once = await eventCount(page);
  expect(once).toBeGreaterThan(0);
  await step.focus();
  await page.keyboard.press('Enter');
  await waitIdle(page);
  expect(await eventCount(page)).toBeGreaterThan(once);
  await expect(page.getByRole('button', { name: 'Play', exact: true })).toBeVisible();
  // Away from a button, Space plays.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press(' ');
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
});

test('the scenario picker browsed with the arrow keys keeps the focus, so each arrow loads the next', async ({ page }) => {
  await openApp(page);
  const picker = page.getByRole('combobox', { name: 'Scenario' });
  const first = await picker.inputValue();
  await picker.focus();
  await page.keyboard.press('ArrowDown');
  await waitIdle(page);
  const second = await picker.inputValue();
  expect(second).not.toBe(first);
  await expect(picker).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await waitIdle(page);
  expect(await picker.inputValue()).not.toBe(second);
  await expect(picker).toBeFocused();
  // Chosen with the mouse (a press on the picker, then the choice), the keys go back to the page.
  await picker.dispatchEvent('pointerdown');
  await picker.selectOption('teaching-small');
  await waitIdle(page);
  await expect(picker).not.toBeFocused();
});
