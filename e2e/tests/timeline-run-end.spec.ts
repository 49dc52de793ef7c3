import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('a run whose tasks end before its scenario does fills the timeline up to its own end', async ({ page }) => {
  await openApp(page);
  // STREAM's passes are done in about 0.16 s of the scenario's 5 s.
  await chooseScenario(page, 'stream8-pinned-zen3');
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1×' });
  const window = page.getByTestId('timeline-window');
  // While it plays, the window is what 4 s of playing covers at 1×: 4 s of the 5 s run.
  await expect(window).toHaveText('0.000000 s to 4.000000 s (4.000 s shown)');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect(page.getByTestId('sim-time')).not.toContainText('t = 0.000000 s', { timeout: 30_000 });
  await expect(page.locator('.clock .done')).toContainText('finished: every task exited at', { timeout: 60_000 });
  await waitIdle(page);
  const end = /t = ([0-9.]+) s/.exec((await page.getByTestId('sim-time').textContent()) ?? '')?.[1];
  expect(Number(end)).toBeLessThan(1);
  await expect(window).toContainText(`0.000000 s to ${end} s`);
  await expect(page.locator('.clock .done')).toHaveText(`finished: every task exited at ${end} s`);
  // The playhead's slider spans the run, not the idle rest of the 5 s: its end is the run's end.
  const slider = page.getByRole('slider', { name: 'Playhead' });
  await expect(slider).toHaveAttribute('aria-valuetext', `${end} s of ${end} s`);
  // Half way along goes to half the run, and the slider keeps the run's span after going back.
  await slider.focus();
  await slider.press('Home');
  await waitIdle(page);
  await expect(page.getByTestId('sim-time')).toContainText('t = 0.000000 s');
  await expect(slider).toHaveAttribute('aria-valuetext', `0.000000 s of ${end} s`);
});
