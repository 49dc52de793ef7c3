import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test.use({ viewport: { width: 1280, height: 720 } });

test('presenter mode: large type, fewer panels, the machine, charts, timeline and inspector kept', async ({ page }) => {
  await openApp(page);
  const fontSize = () => page.locator('.app').evaluate((element) => Number.parseFloat(getComputedStyle(element).fontSize));
  const before = await fontSize();
  const button = page.getByRole('button', { name: 'Presenter mode' });
  await button.click();
  await expect(button).toHaveAttribute('aria-pressed', 'true');
  expect(await fontSize()).toBeGreaterThanOrEqual(before * 1.15);
  for (const region of ['Lock stat', 'Sweep']) await expect(page.getByRole('region', { name: region })).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Scenario JSON' })).toHaveCount(0);
  for (const region of ['Timeline', 'Charts', 'Inspector', 'Policy']) await expect(page.getByRole('region', { name: region })).toBeVisible();
  await expect(page.locator('svg[data-testid="machine"]')).toBeVisible();
  // At 1280x720 the run's controls share the scenario picker's row: two rows of controls, not three.
  const picker = await page.getByRole('combobox', { name: 'Scenario' }).boundingBox();
  const play = await page.getByRole('button', { name: 'Play', exact: true }).boundingBox();
  expect(picker && play && Math.abs(picker.y + picker.height / 2 - (play.y + play.height / 2))).toBeLessThan(8);
  // No event log here: the Inspector's hint names the key instead of the log.
  const hint = page.getByRole('region', { name: 'Inspector' }).locator('.inspector-hint');
  await expect(hint).toContainText('Press n (Next decision)');
  await expect(hint).not.toContainText('event log');
  // The machine comes first: the scenario's description is folded under a summary,
  // one click away, and the labels beside the controls are large too.
  const description = page.getByTestId('scenario-description');
  await expect(description.getByText('About this scenario')).toBeVisible();
  await expect(description).not.toHaveAttribute('open');
  const labelSize = await page
    .getByRole('toolbar', { name: 'Simulation controls' })
    .getByText('Speed', { exact: true })
    .evaluate((element) => Number.parseFloat(getComputedStyle(element).fontSize));
  expect(labelSize).toBeGreaterThanOrEqual(16);
  await description.getByText('About this scenario').click();
  await expect(description).toHaveAttribute('open');
  await expect(description).toContainText('A small machine');
  // It plays as before; `p` switches back.
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await waitIdle(page);
  await page.keyboard.press('p');
  await expect(button).toHaveAttribute('aria-pressed', 'false');
  await expect(hint).toContainText('line in the event log');
  await expect(page.getByRole('region', { name: 'Sweep' })).toBeVisible();
});

test('presenter mode in an 800 px window: every control inside the toolbar, no button or label broken over two lines', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 700 });
  await openApp(page);
  await page.getByRole('button', { name: 'Presenter mode' }).click();
  const toolbar = page.getByRole('toolbar', { name: 'Simulation controls' });
  const problems = await toolbar.evaluate((bar) => {
    const edge = bar.getBoundingClientRect().right;
    // One line of a label, and of a button: the Scenario label's and the Step button's heights.
    const oneLine = (selector: string) => bar.querySelector(selector)?.getBoundingClientRect().height ?? 0;
    const label = oneLine('.field > span');
    const button = oneLine('button');
    return [...bar.querySelectorAll<HTMLElement>('button, select, .field > span')].flatMap((element) => {
      const box = element.getBoundingClientRect();
      const name = element.textContent?.trim().slice(0, 24) || element.tagName;
      const line = element.tagName === 'SPAN' ? label : element.tagName === 'BUTTON' ? button : Infinity;
      return [...(box.right > edge + 1 ? [`${name}: past the toolbar's edge`] : []), ...(box.height > line * 1.4 ? [`${name}: on two lines`] : [])];
    });
  });
  expect(problems).toEqual([]);
});
