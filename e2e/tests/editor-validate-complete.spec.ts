import { expect, test, type Locator } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { openApp, waitIdle } from './helpers';

const SCHEMA = JSON.parse(readFileSync(new URL('../../scenarios/scenario.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** Puts the cursor at an offset of the textarea's text. */
async function placeCursor(editor: Locator, offset: number): Promise<void> {
  await editor.focus();
  await editor.evaluate((element, at) => (element as HTMLTextAreaElement).setSelectionRange(at, at), offset);
}

async function cursorOf(editor: Locator): Promise<number> {
  return editor.evaluate((element) => (element as HTMLTextAreaElement).selectionStart);
}

test('the editor checks the text as it is typed, completes field names from the schema, and links to it', async ({ page }) => {
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const check = page.getByRole('status', { name: 'Text check' });
  const problems = page.getByRole('list', { name: 'Problems in the text' });
  const original = await editor.inputValue();
  await expect(check).toHaveText('Valid: this is the scenario running.');

  // A schema error is shown under the text without pressing Apply.
  const broken = original.replace('"seed": 42', '"seed": -1');
  expect(broken).not.toBe(original);
  await editor.fill(broken);
  await expect(problems.getByRole('listitem')).toHaveText(['seed: must be at least 0, got -1']);
  await expect(check).toContainText('1 problem in the text (not applied)');
  await expect(page.getByRole('alert')).toHaveCount(0);
  // Clicking it puts the cursor on its key; the text is left as typed.
  await problems.getByRole('button', { name: 'seed: must be at least 0, got -1' }).click();
  await expect(editor).toBeFocused();
  expect(await cursorOf(editor)).toBe(broken.indexOf('"seed"'));
  await expect(editor).toHaveValue(broken);

  // Text that is not JSON: the problem says where, and leads there.
  await editor.fill('{ "title": "t", oops }');
  await expect(problems.getByRole('listitem')).toHaveText([/^not valid JSON: .*line 1,? column 17/]);
  await problems.getByRole('button').click();
  expect(await cursorOf(editor)).toBe('{ "title": "t", '.length);

  // What the schema allows but the core refuses is found before Apply too, in the core's words.
  await editor.fill(original.replace('"seed": 42,', '"seed": 42, "kernel": "7.2",'));
  await expect(problems.getByRole('listitem')).toHaveText([
    'kernel: kernel 7.2 is not modelled: 6.6 replaced CFS with EEVDF, which is not modelled yet; the newest modelled is 6.5',
  ]);
  await expect(check).toContainText('1 problem in the text (not applied)');

  // Fixed: the problems are gone; the text is valid but not applied yet.
  const fixed = original.replace('"seed": 42', '"seed": 7');
  await editor.fill(fixed);
  await expect(problems).toHaveCount(0);
  await expect(check).toHaveText('Valid: Apply to run it (not yet applied).');

  // Ctrl+Space inside `"topology": {` offers the machine's fields, those not there yet.
  const cursor = fixed.indexOf('"topology": {') + '"topology": {'.length;
  await placeCursor(editor, cursor);
  await page.keyboard.press('Control+Space');
  const suggestions = page.getByRole('listbox', { name: 'Field suggestions' });
  await expect(suggestions.getByRole('option', { name: /^sockets/ })).toBeVisible();
  await expect(suggestions.getByRole('option', { name: /^cores_per_llc/ })).toBeVisible();
  await expect(suggestions.getByRole('option', { name: /^preset/ })).toHaveCount(0);
  // Typing filters; Enter inserts the field, keeping the rest of the text.
  await page.keyboard.type('"so');
  await expect(suggestions.getByRole('option')).toHaveText([/^sockets/]);
  await page.keyboard.press('Enter');
  await expect(suggestions).toHaveCount(0);
  const completed = `${fixed.slice(0, cursor)}"sockets": ${fixed.slice(cursor)}`;
  await expect(editor).toHaveValue(completed);
  expect(await cursorOf(editor)).toBe(cursor + '"sockets": '.length);
  await page.keyboard.type('1,');
  await expect(check).toHaveText('Valid: Apply to run it (not yet applied).');
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(check).toHaveText('Valid: this is the scenario running.');

  // The schema the help text names is served by the app, and linked.
  const link = page.getByRole('link', { name: 'scenarios/scenario.schema.json' });
  await expect(link).toHaveAttribute('target', '_blank');
  const href = await link.getAttribute('href');
  expect(href).toBe('/scenario.schema.json');
  const served = await page.evaluate(async (url) => {
    const response = await fetch(url);
    return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
  }, href ?? '');
  expect(served.status).toBe(200);
  expect(served.type).toContain('application/json');
  expect(served.body.$schema).toBe(SCHEMA.$schema);
  expect(served.body.title).toBe(SCHEMA.title);
  expect(Object.keys(served.body.$defs as object)).toEqual(Object.keys(SCHEMA.$defs as object));
  expect(served.body).toEqual(SCHEMA);
});

test('typing a quote where a field goes offers the fields of the object\'s kind; arrows move, Escape closes, a reload keeps the text', async ({ page }) => {
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const suggestions = page.getByRole('listbox', { name: 'Field suggestions' });
  const original = await editor.inputValue();
  const after = '"sleeptime_us": 3000';
  await placeCursor(editor, original.indexOf(after) + after.length);
  await page.keyboard.type(', "');
  // A schbench workload: the fields of its kind it does not have yet (not hackbench's `groups`).
  const options = suggestions.getByRole('option');
  await expect(options).toHaveText([/^cpus/, /^footprint_kib/, /^nice/, /^pipe_bytes/]);
  await expect(options.first()).toHaveAccessibleName(/^cpus string \| null Affinity of every thread/);
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(editor).toHaveAttribute('aria-activedescendant', (await options.nth(1).getAttribute('id')) ?? '');
  await page.keyboard.press('ArrowUp');
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Escape');
  await expect(suggestions).toHaveCount(0);
  const typed = original.replace(after, `${after}, "`);
  await expect(editor).toHaveValue(typed);

  // Letters reopen it, filtered; Tab inserts.
  await page.keyboard.type('ni');
  await expect(options).toHaveText([/^nice/]);
  await page.keyboard.press('Tab');
  const completed = original.replace(after, `${after}, "nice": `);
  await expect(editor).toHaveValue(completed);
  await expect(editor).toBeFocused();
  await expect(page.getByRole('list', { name: 'Problems in the text' })).toContainText('not valid JSON');

  // What was typed, half done, is kept across a reload and checked again.
  await page.reload();
  await waitIdle(page);
  await expect(editor).toHaveValue(completed);
  await expect(page.getByRole('list', { name: 'Problems in the text' })).toContainText('not valid JSON');
});
