import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('typed scenario text is kept across a reload, even when it is not valid JSON', async ({ page }) => {
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const typed = '{ "title": "half typed", "seed": 3, oops';
  await editor.fill(typed);
  await page.reload();
  await waitIdle(page);
  await expect(editor).toHaveValue(typed);
  // The run underneath is the scenario that last loaded.
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('teaching-small');
  await expect(page.locator('svg[data-testid="machine"] g.cpu')).toHaveCount(8);

  // Applied and refused: the text and its problem both survive the next reload.
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  await expect(page.getByRole('alert')).toContainText('not valid JSON');
  await page.reload();
  await waitIdle(page);
  await expect(editor).toHaveValue(typed);
  await expect(page.getByRole('alert', { name: 'Restore problems' })).toHaveCount(0);
});

test('the scenario, the policy overrides and the speed are kept; a share link wins over them', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'hackbench-7950x');
  const policy = page.getByRole('region', { name: 'Policy' });
  await policy.getByRole('checkbox', { name: 'wake_affine.enabled' }).click();
  await waitIdle(page);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('1×');

  await page.reload();
  await waitIdle(page);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('hackbench-7950x');
  await expect(policy.getByRole('checkbox', { name: 'wake_affine.enabled' })).not.toBeChecked();
  await expect(policy.getByRole('list', { name: 'Settings changed from the scenario file' }).getByRole('listitem')).toHaveText([
    'wake_affine.enabled false (file: true)',
  ]);
  await expect(page.getByRole('combobox', { name: 'Speed' })).toHaveValue('4');
  // A new run starts at time 0: the playhead is a share link's, not the session's.
  await expect(page.getByTestId('sim-time')).toContainText('t = 0.000000 s');

  // A link with state wins over what was kept (opened as a new page load, not a hash change)...
  await page.goto('about:blank');
  await page.goto('/#v=1&scenario=teaching-small&speed=0.01');
  await waitIdle(page);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('teaching-small');
  await expect(policy.getByTestId('policy-diff')).toContainText('Every setting is as in the scenario file.');
  await expect(page.getByRole('combobox', { name: 'Speed' })).toHaveValue('2');
  // ...and is then what is kept: a plain reload stays there.
  await page.reload();
  await waitIdle(page);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('teaching-small');
});
