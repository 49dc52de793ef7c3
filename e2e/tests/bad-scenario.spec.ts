import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test('a bad scenario is explained and the typed text is kept', async ({ page }) => {
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const original = await editor.inputValue();
  const broken = original.replace('"preset": "teaching-small"', '"preset": "teaching-small", "llcs_per_socket": 0');
  expect(broken).not.toBe(original);
  // Apply stays where it is while the check under the text changes (its list appears a
  // pause after typing): a click on Apply cannot land on a problem instead.
  const apply = page.getByRole('button', { name: 'Apply scenario' });
  const applyBelowText = () => apply.evaluate((button) => button.getBoundingClientRect().top - (document.querySelector('textarea[aria-label="Scenario JSON"]')?.getBoundingClientRect().top ?? 0));
  const applyAt = await applyBelowText();
  await editor.fill(broken);
  await expect(page.getByRole('list', { name: 'Problems in the text' })).toContainText('topology.llcs_per_socket: must be at least 1, got 0');
  expect(await applyBelowText()).toBe(applyAt);
  await apply.click();
  await waitIdle(page);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('topology.llcs_per_socket: must be at least 1, got 0');
  await expect(alert).toContainText('Your edit was not applied; the previous run is still loaded and plays.');
  // Brought into view: Apply sits low in the page, and a refusal under the fold would go unseen.
  await expect(alert).toBeInViewport({ ratio: 1 });
  await expect(editor).toHaveValue(broken);
  // The problem is listed once on screen: in the check under the text, where a click
  // goes to it. The alert says so, and keeps its own list for screen readers only.
  const checked = page.getByRole('list', { name: 'Problems in the text' });
  await expect(checked).toContainText('topology.llcs_per_socket: must be at least 1, got 0');
  await expect(alert).toContainText('because of the problem listed above');
  await expect
    .poll(async () => (await alert.getByRole('list').locator('..').boundingBox())?.height ?? 0, { message: 'the alert list takes no room on screen' })
    .toBeLessThanOrEqual(1);
  // The last good run stays: its machine is drawn and it plays.
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('teaching-small');
  await expect(page.locator('svg[data-testid="machine"] g.cpu')).toHaveCount(8);
  const before = await page.evaluate(() => window.__schedlab?.events ?? 0);
  await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  expect(await page.evaluate(() => window.__schedlab?.events ?? 0)).toBe(before + 1);

  // Not JSON at all: the message says where. Until it is applied, the refusal
  // above is told apart from the text as it is now.
  await editor.fill('{ "title": "t", oops }');
  await expect(alert).toContainText('Your last Apply was refused: 1 problem in the text as it was then.');
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  await expect(alert).toContainText('not valid JSON');
  await expect(editor).toHaveValue('{ "title": "t", oops }');

  // Empty text: said to be empty, not "Unexpected end of JSON input"; text cut short: where it ends.
  await editor.fill('');
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  await expect(alert).toContainText('the text is empty');
  await editor.fill('{\n  "title": "t",\n  "topology":');
  await expect(page.getByRole('list', { name: 'Problems in the text' })).toContainText('the text ends before its JSON does, at line 3, column 14 (1 bracket left open?)');
  // The caret's line and column, counted as the problems count them: a click on the problem goes there.
  await page.getByRole('list', { name: 'Problems in the text' }).getByText('the text ends before').click();
  await expect(page.getByTestId('editor-caret')).toHaveText('line 3, column 14');
  await editor.focus();
  await page.keyboard.press('Control+End');
  await expect(page.getByTestId('editor-caret')).toHaveText('line 3, column 14');
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('editor-caret')).toHaveText('line 2, column 3');

  // A fixed scenario loads.
  await editor.fill(original.replace('"seed": 42', '"seed": 43'));
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('custom');
});
