import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test('the timeline draws each CPU\'s runs as the simulation plays, and clicking a run selects its task', async ({ page }) => {
  await openApp(page);
  const timeline = page.getByRole('region', { name: 'Timeline' });
  await expect(timeline).toBeVisible();
  await expect(timeline.getByRole('img', { name: /^Task runs on 8 CPUs/ })).toBeVisible();

  // Play until 20 ms of simulated time have passed, then pause and let the engine settle.
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(() => Number(/t = (\d+\.\d+)/.exec(document.querySelector('[data-testid="sim-time"]')?.textContent ?? '')?.[1] ?? 0) >= 0.02);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);

  // Lanes for all 8 CPUs (labelled on the canvas; the lanes' group names the count) and drawn runs.
  await expect(timeline.getByRole('group', { name: /^CPU lanes: 8 CPUs/ })).toBeVisible();
  await expect(timeline.getByRole('button', { name: 'Follow' })).toHaveAttribute('aria-pressed', 'true');
  await page.waitForFunction(() => (window.__schedlab?.timeline.spans ?? 0) > 0 && window.__schedlab?.timeline.sample !== undefined);
  const hook = await page.evaluate(() => window.__schedlab?.timeline);
  expect(hook?.lanes).toBe(8);
  expect(hook?.switches).toBeGreaterThan(8);
  const sample = hook?.sample;
  expect(sample).toBeDefined();
  if (!sample) return;

  // Clicking the widest run selects its switch record and task, as the event log does.
  await page.getByTestId('timeline-canvas').click({ position: { x: sample.x, y: sample.y } });
  await waitIdle(page);
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector).toContainText('sched_switch event is not a placement decision');
  const record = (await inspector.locator('.inspector-record').textContent()) ?? '';
  const selectedPid = /pid (\d+)/.exec(record)?.[1];
  expect(selectedPid).toBeDefined();
  // The switch says why it happened, and where its task's placements are explained.
  await expect(inspector.getByRole('note')).toContainText(/^.*Why: .+\. A sched_switch event/);
  await expect(inspector.getByRole('note')).toContainText(`select a sched_wakeup of pid ${selectedPid}`);
  // The machine drawing names the selected task's pid and outlines its allowed CPUs.
  await expect(page.getByTestId('selected-task')).toContainText(`pid ${selectedPid}`);
  await expect(page.locator('svg[data-testid="machine"] g.cpu.allowed').first()).toBeVisible();

  // Dragging pans the view and stops following; Follow resumes.
  const canvas = page.getByTestId('timeline-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no canvas');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect(timeline.getByRole('button', { name: 'Follow' })).toHaveAttribute('aria-pressed', 'false');
  await timeline.getByRole('button', { name: 'Follow' }).click();
  await expect(timeline.getByRole('button', { name: 'Follow' })).toHaveAttribute('aria-pressed', 'true');

  // Keyboard: + zooms in at the playhead (the window halves in a few presses), not the app's speed.
  const windowText = async () => (await timeline.getByTestId('timeline-window').textContent()) ?? '';
  const before = await windowText();
  await timeline.getByRole('group', { name: /^CPU lanes/ }).focus();
  await page.keyboard.press('+');
  await expect.poll(windowText).not.toBe(before);
  await expect(page.getByRole('combobox', { name: 'Speed' })).toHaveValue('2');
  await page.keyboard.press('ArrowLeft');
  await expect(timeline.getByRole('button', { name: 'Follow' })).toHaveAttribute('aria-pressed', 'false');
});
