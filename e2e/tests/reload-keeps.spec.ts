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

test('a pasted log, the sweep\'s fields and a set-aside edit are kept across a reload', async ({ page }) => {
  await openApp(page);
  const log = '          <idle>-0     [001] d..2.   100.000100: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=11 next_prio=120\n';
  const replay = page.getByRole('region', { name: 'Replay' });
  await replay.getByRole('textbox', { name: 'Paste ftrace log' }).fill(log);
  const sweep = page.getByRole('region', { name: 'Sweep' });
  await sweep.getByRole('textbox', { name: 'Vary' }).fill('kernel=5.18,6.5');
  await sweep.getByRole('textbox', { name: 'Seeds' }).fill('3..4');
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const edited = (await editor.inputValue()).replace('"seed": 42', '"seed": 43');
  await editor.fill(edited);
  await chooseScenario(page, 'cgroup-weights');

  await page.reload();
  await waitIdle(page);
  await expect(replay.getByRole('textbox', { name: 'Paste ftrace log' })).toHaveValue(log);
  await expect(sweep.getByRole('textbox', { name: 'Vary' })).toHaveValue('kernel=5.18,6.5');
  await expect(sweep.getByRole('textbox', { name: 'Seeds' })).toHaveValue('3..4');
  const note = page.getByRole('status').filter({ hasText: 'Your unapplied edit of teaching-small was set aside' });
  await note.getByRole('button', { name: 'Put it back in the editor' }).click();
  await expect(editor).toHaveValue(edited);

  // Suggested puts back the scenario's own sweep, and a reload keeps that choice too.
  await sweep.getByRole('button', { name: 'Suggested' }).click();
  const suggested = await sweep.getByRole('textbox', { name: 'Vary' }).inputValue();
  expect(suggested).not.toBe('kernel=5.18,6.5');
  await page.reload();
  await waitIdle(page);
  await expect(sweep.getByRole('textbox', { name: 'Vary' })).toHaveValue(suggested);
});

test('a link opened in a new page sets the last session\'s unapplied edit aside instead of losing it', async ({ page }) => {
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const edited = (await editor.inputValue()).replace('"seed": 42', '"seed": 44');
  await editor.fill(edited);

  await page.goto('about:blank');
  await page.goto('/#v=1&scenario=hackbench-7950x');
  await waitIdle(page);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('hackbench-7950x');
  const note = page.getByRole('status').filter({ hasText: 'Your unapplied edit of teaching-small was set aside' });
  await expect(note).toBeVisible();
  // Kept through a reload too, until put back.
  await page.reload();
  await waitIdle(page);
  await note.getByRole('button', { name: 'Put it back in the editor' }).click();
  await expect(editor).toHaveValue(edited);
});
