import { expect, test, type Browser, type Page } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** Opens a link in a fresh browser context (no storage, no clipboard shared with the page that made it). */
async function openFresh(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  await waitIdle(page);
  expect(errors).toEqual([]);
  return page;
}

async function playALittle(page: Page) {
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(() => page.evaluate(() => window.__schedlab?.events ?? 0)).toBeGreaterThan(2000);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
}

test('a share link reopens the scenario, the changed policy setting, the speed and the simulated time', async ({ page, browser }) => {
  await openApp(page);
  await chooseScenario(page, 'hackbench-7950x');
  const policy = page.getByRole('region', { name: 'Policy' });
  // A controlled switch: it turns off once the re-run with it has loaded.
  await policy.getByRole('checkbox', { name: 'wake_affine.enabled' }).click();
  await waitIdle(page);
  await expect(policy.getByRole('checkbox', { name: 'wake_affine.enabled' })).not.toBeChecked();
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('1/1000×');
  await playALittle(page);
  const time = await page.getByTestId('sim-time').textContent();
  const events = await page.getByTestId('event-count').textContent();
  expect(time).not.toContain('t = 0.000000 s');

  await page.getByRole('button', { name: 'Share link' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Link copied to the clipboard.' })).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toMatch(/#v=1&scenario=hackbench-7950x&seed=1&speed=0\.001&t=\d+&e=\d+&set=policy\.wake_affine\.enabled%3Dfalse$/);

  const opened = await openFresh(browser, link);
  await expect(opened.getByRole('combobox', { name: 'Scenario' })).toHaveValue('hackbench-7950x');
  const openedPolicy = opened.getByRole('region', { name: 'Policy' });
  await expect(openedPolicy.getByRole('list', { name: 'Settings changed from the scenario file' }).getByRole('listitem')).toHaveText([
    'wake_affine.enabled false (file: true)',
  ]);
  await expect(openedPolicy.getByRole('checkbox', { name: 'wake_affine.enabled' })).not.toBeChecked();
  await expect(opened.getByRole('combobox', { name: 'Speed' })).toHaveValue('1');
  await expect(opened.getByTestId('sim-time')).toHaveText(time ?? '');
  await expect(opened.getByTestId('event-count')).toHaveText(events ?? '');
  await expect(opened.getByRole('alert', { name: 'Restore problems' })).toHaveCount(0);
  // The state is read once: the address is plain again, so a reload keeps later changes.
  expect(new URL(opened.url()).hash).toBe('');
  // And it plays on from there.
  await opened.getByRole('button', { name: 'Step' }).click();
  await waitIdle(opened);
  await opened.context().close();
});

test('without a clipboard the link is shown to copy, and an edited scenario travels as its text', async ({ page, browser }) => {
  await page.addInitScript(() => Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true }));
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const edited = (await editor.inputValue()).replace('"seed": 42', '"seed": 7');
  await editor.fill(edited);
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('custom');
  await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  const events = await page.getByTestId('event-count').textContent();
  const time = await page.getByTestId('sim-time').textContent();

  await page.getByRole('button', { name: 'Share link' }).click();
  const field = page.getByRole('textbox', { name: 'Link to this run' });
  await expect(field).toBeVisible();
  await expect(page.getByRole('group', { name: 'Share link' })).toContainText('Copy this link:');
  const link = await field.inputValue();
  expect(link).toContain('#v=1&text=');
  expect(link).toContain('&seed=7&');

  const opened = await openFresh(browser, link);
  await expect(opened.getByRole('combobox', { name: 'Scenario' })).toHaveValue('custom');
  await expect(opened.getByRole('textbox', { name: 'Scenario JSON' })).toHaveValue(edited);
  await expect(opened.getByTestId('policy-kernel')).toContainText('seed 7');
  await expect(opened.getByTestId('event-count')).toHaveText(events ?? '');
  await expect(opened.getByTestId('sim-time')).toHaveText(time ?? '');
  await opened.context().close();
});

test('a corrupt or outdated link says what was wrong and where, and opens the default scenario', async ({ browser, baseURL }) => {
  const corrupt = await openFresh(browser, `${baseURL}/#v=1&text=@@not-base64@@&t=5000`);
  const notice = corrupt.getByRole('alert', { name: 'Restore problems' });
  await expect(notice).toContainText('This link could not be opened exactly as it was shared.');
  await expect(notice).toContainText('text: the scenario text is not base64url text');
  await expect(corrupt.getByRole('combobox', { name: 'Scenario' })).toHaveValue('teaching-small');
  await expect(corrupt.getByTestId('sim-time')).toContainText('t = 0.000000 s');
  await expect(corrupt.locator('svg[data-testid="machine"] g.cpu')).toHaveCount(8);
  await corrupt.context().close();

  const outdated = await openFresh(browser, `${baseURL}/#v=1&scenario=teaching-small&t=-5&set=policy.no_such.knob=1&set=policy.wake_affine.enabled=false`);
  const problems = outdated.getByRole('alert', { name: 'Restore problems' });
  await expect(problems.getByRole('listitem')).toHaveText([
    't: the time must be at least 0 ns, got -5; started at 0',
    'set policy.no_such.knob: the scenario schema has no policy setting policy.no_such.knob; ignored',
  ]);
  await expect(problems.getByRole('listitem').nth(1).locator('code')).toHaveText(['set policy.no_such.knob', 'policy.no_such.knob']);
  // What was good in it still applies.
  await expect(outdated.getByRole('region', { name: 'Policy' }).getByRole('checkbox', { name: 'wake_affine.enabled' })).not.toBeChecked();
  await problems.getByRole('button', { name: 'Dismiss' }).click();
  await expect(problems).toHaveCount(0);
  // The link stays in the address bar as it was written, to read or mend, until the user
  // changes what runs; then it goes, so that a reload keeps that change.
  expect(new URL(outdated.url()).hash).toBe('#v=1&scenario=teaching-small&t=-5&set=policy.no_such.knob=1&set=policy.wake_affine.enabled=false');
  await outdated.getByRole('combobox', { name: 'Speed' }).selectOption('1/1000×');
  await expect.poll(() => new URL(outdated.url()).hash).toBe('');

  const unknown = await openFresh(browser, `${baseURL}/#v=1&scenario=retired-scenario`);
  await expect(unknown.getByRole('alert', { name: 'Restore problems' })).toContainText('scenario: there is no scenario retired-scenario in this version of schedlab; opened teaching-small instead');
  await expect(unknown.getByRole('combobox', { name: 'Scenario' })).toHaveValue('teaching-small');
  // Only the speed of such a link applies: the banner does not say the rest was restored.
  await expect(unknown.getByRole('alert', { name: 'Restore problems' })).toContainText('only the speed was kept');
  await expect(unknown.getByRole('alert', { name: 'Restore problems' })).not.toContainText('Everything else was restored');
  await outdated.context().close();
  await unknown.context().close();

  // A hash with no schedlab state in it restores nothing, and does not say the rest was.
  const garbage = await openFresh(browser, `${baseURL}/#garbage`);
  const garbageNotice = garbage.getByRole('alert', { name: 'Restore problems' });
  await expect(garbageNotice).toContainText('link: holds no schedlab state');
  await expect(garbageNotice).not.toContainText('Everything else was restored');
  await garbage.context().close();
});

test('a link too long for a browser to open is refused with a reason, not copied', async ({ page }) => {
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  // An incompressible description of 2.4 M characters, set at once (typing it would take minutes).
  await editor.evaluate((element: HTMLTextAreaElement) => {
    // xorshift32: random enough that compression cannot shrink it much.
    let state = 2463534242;
    const chars: string[] = [];
    for (let i = 0; i < 2_400_000; i++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      chars.push(String.fromCharCode(35 + (state % 57)));
    }
    const scenario = JSON.parse(element.value) as Record<string, unknown>;
    scenario.description = chars.join('');
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')?.set;
    setter?.call(element, JSON.stringify(scenario, null, 2));
    element.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  await page.getByRole('button', { name: 'Share link' }).click();
  await expect(page.getByRole('alert').filter({ hasText: /This run's link would be \d+\.\d MB, longer than a browser opens/ })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Link copied' })).toHaveCount(0);
});
