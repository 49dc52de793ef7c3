import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test('clicking a wakeup in the event log explains its CPU choice in the Inspector', async ({ page }) => {
  await openApp(page);
  const log = page.getByRole('list', { name: 'Recent scheduler events' });
  // A schbench wakeup (a kworker may run only on its own CPU: nothing to inspect).
  const wakeups = log.getByRole('button', { name: /\bsched_wakeup comm=/ }).filter({ hasNotText: 'kworker' });
  // Step one event at a time until the log shows one.
  for (let steps = 0; steps < 400 && (await wakeups.count()) === 0; steps++) {
    await page.getByRole('button', { name: 'Step' }).click();
    await waitIdle(page);
  }
  const row = wakeups.first();
  const text = (await row.textContent()) ?? '';
  const target = Number(/target_cpu=(\d+)/.exec(text)?.[1]);
  expect(Number.isInteger(target)).toBe(true);

  await row.click();
  await waitIdle(page);
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector.getByTestId('chosen-cpu')).toContainText(`CPU ${target} chosen`);
  await expect(row).toHaveAttribute('aria-pressed', 'true');
  // Open, it scrolls within itself, with a shade at an edge that has more beyond it
  // (covers that travel with the content, shades that stay with the box).
  expect(await inspector.evaluate((element) => getComputedStyle(element).backgroundAttachment)).toBe('local, local, scroll, scroll');
  // At least one CPU inspected, shown as a chip with what it was.
  const inspected = inspector.getByRole('list', { name: /^CPUs step \d+ inspected, in order$/ }).getByRole('listitem');
  expect(await inspected.count()).toBeGreaterThan(0);
  await expect(inspected.first()).toHaveText(/^CPU \d+ (busy|idle|idle core|not allowed)/);
  await expect(inspector.locator(`.chip-chosen[data-cpu="${target}"]`)).toBeVisible();
  // The task's allowed CPUs (all 8 here) are outlined on the machine, the chosen one ringed.
  const machine = page.locator('svg[data-testid="machine"]');
  await expect(machine.locator('g.cpu.allowed')).toHaveCount(8);
  await expect(machine.locator('g.cpu.chosen')).toHaveAttribute('data-cpu', String(target));

  // Open, it stays in view as the page scrolls, but never covers the whole column:
  // the panels below it (the scenario editor's button) can still be brought out and clicked.
  const apply = page.getByRole('button', { name: 'Apply scenario' });
  await apply.evaluate((element) => element.scrollIntoView({ block: 'center' }));
  const onTop = await apply.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return hit !== null && element.contains(hit);
  });
  expect(onTop).toBe(true);
  await apply.evaluate((element) => element.scrollIntoView({ block: 'end' }));
  await expect(inspector).toBeInViewport();

  // From the keyboard: Enter on a switch says it is not a decision the inspector explains.
  const switchRow = log.getByRole('button', { name: /\bsched_switch prev_comm=/ }).first();
  await switchRow.focus();
  await page.keyboard.press('Enter');
  await waitIdle(page);
  await expect(inspector).toContainText('sched_switch event is not a placement decision');
});

test('clicking a CPU on the machine shows its runqueue, load and recent switches; a task shows its recent events', async ({ page }) => {
  await openApp(page);
  await page.getByRole('slider', { name: 'Playhead' }).focus();
  await page.keyboard.press('PageUp');
  await waitIdle(page);
  const machine = page.locator('svg[data-testid="machine"]');
  await machine.locator('g.cpu[data-cpu="3"] rect.cpu-cell').click();
  const inspector = page.getByRole('region', { name: 'Inspector' });
  const cpu = inspector.getByTestId('cpu-inspection');
  await expect(cpu).toContainText('CPU 3 (core 1, LLC 0, node 0, socket 0)');
  const pid = await machine.locator('g.cpu[data-cpu="3"]').getAttribute('data-pid');
  await expect(cpu.getByTestId('cpu-running')).toHaveText(pid === '0' ? 'idle' : new RegExp(`^pid ${pid} `));
  const switches = inspector.getByRole('list', { name: 'Recent switches on CPU 3' }).getByRole('button');
  await expect(switches).toHaveCount(8);
  // A switch opens as the log's line would, and its task's recent events follow.
  await switches.first().click();
  await waitIdle(page);
  await expect(inspector).toContainText('sched_switch');
  await expect(inspector.getByRole('list', { name: /^Recent events of pid \d+$/ }).getByRole('button').first()).toBeVisible();
});

test('a decision from earlier than the playhead offers to show the machine at its time', async ({ page }) => {
  await openApp(page);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  const log = page.getByRole('list', { name: 'Recent scheduler events' });
  const wakeups = log.getByRole('button', { name: /\bsched_wakeup comm=schbench/ });
  await expect.poll(() => wakeups.count()).toBeGreaterThan(3);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  // The log is newest first: the last listed wakeup is well before the playhead.
  const row = wakeups.last();
  const text = (await row.textContent()) ?? '';
  const when = /(\d+\.\d{6})/.exec(text)?.[1];
  expect(when).toBeDefined();
  await row.click();
  await waitIdle(page);
  const inspector = page.getByRole('region', { name: 'Inspector' });
  const chosen = Number(/CPU (\d+) chosen/.exec((await inspector.getByTestId('chosen-cpu').textContent()) ?? '')?.[1]);
  const note = inspector.getByTestId('inspector-when');
  await expect(note).toContainText("not this decision's time");
  await note.getByRole('button', { name: `Show the machine at ${when} s` }).click();
  await waitIdle(page);
  await expect(page.getByTestId('sim-time')).toContainText(`t = ${when} s`);
  await expect(note).toHaveCount(0);
  // Still explained, the chosen CPU ringed on the machine as it stood then (the woken
  // task may still be on its wake list, a few microseconds from its runqueue).
  await expect(inspector.getByTestId('chosen-cpu')).toContainText(`CPU ${chosen} chosen`);
  await expect(page.locator(`svg[data-testid="machine"] g.cpu[data-cpu="${chosen}"]`)).toHaveClass(/chosen/);
});

test('the keyboard chooses a CPU on the machine: arrows, Home and End; the inspected CPU is ringed', async ({ page }) => {
  await openApp(page);
  const machine = page.locator('svg[data-testid="machine"]');
  await machine.focus();
  const inspector = page.getByRole('region', { name: 'Inspector' });
  const cpu = inspector.getByTestId('cpu-inspection');
  await page.keyboard.press('ArrowRight');
  await expect(cpu).toContainText('CPU 0 (core 0, LLC 0');
  await expect(machine.locator('g.cpu.chosen')).toHaveAttribute('data-cpu', '0');
  await page.keyboard.press('ArrowRight');
  await expect(cpu).toContainText('CPU 1 ');
  await page.keyboard.press('End');
  await expect(cpu).toContainText('CPU 7 ');
  await expect(machine.locator('g.cpu.chosen')).toHaveAttribute('data-cpu', '7');
  await page.keyboard.press('ArrowRight');
  await expect(cpu).toContainText('CPU 0 ');
  await page.keyboard.press('ArrowLeft');
  await expect(cpu).toContainText('CPU 7 ');
  // The arrows stayed with the machine: the playhead did not move.
  expect(await page.evaluate(() => window.__schedlab?.events)).toBeLessThan(5);
});
