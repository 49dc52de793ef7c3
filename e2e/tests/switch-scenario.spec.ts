import { expect, test } from '@playwright/test';
import { chooseScenario, openApp } from './helpers';

test('picking another scenario loads its machine', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'sis-schbench-t19');
  await expect(page.getByRole('heading', { name: 'xeon-2s10c: 40 CPUs' })).toBeVisible();
  await expect(page.locator('svg[data-testid="machine"] g.cpu')).toHaveCount(40);
  await expect(page.locator('svg[data-testid="machine"] g.socket')).toHaveCount(2);
});

test('an unapplied edit is set aside when another scenario is picked, and can be put back', async ({ page }) => {
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const edited = (await editor.inputValue()).replace('"seed": 42', '"seed": 43');
  expect(edited).toContain('"seed": 43');
  await editor.fill(edited);
  await chooseScenario(page, 'cgroup-weights');
  await expect(editor).not.toHaveValue(edited);
  const note = page.getByRole('status').filter({ hasText: 'Your unapplied edit of teaching-small was set aside' });
  await expect(note).toBeVisible();
  await note.getByRole('button', { name: 'Put it back in the editor' }).click();
  await expect(editor).toHaveValue(edited);
  await expect(note).toHaveCount(0);
});
