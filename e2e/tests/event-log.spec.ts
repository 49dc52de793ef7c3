import { expect, test } from '@playwright/test';
import { eventCount, openApp, waitIdle } from './helpers';

test('the event log filters by event, CPU and pid, and pages back through the whole run', async ({ page }) => {
  await openApp(page);
  await page.getByRole('slider', { name: 'Playhead' }).focus();
  await page.keyboard.press('PageUp');
  await waitIdle(page);
  const log = page.getByRole('list', { name: 'Recent scheduler events' });
  const filter = page.getByRole('group', { name: 'Filter events' });

  await filter.getByRole('combobox', { name: 'Event' }).selectOption('sched_migrate_task');
  await waitIdle(page);
  const rows = log.locator('li');
  await expect(rows.first()).toContainText('sched_migrate_task');
  const names = await log.locator('.ev-name').allTextContents();
  expect(names.length).toBeGreaterThan(5);
  expect(new Set(names)).toEqual(new Set(['sched_migrate_task']));

  // A pid: every line is that task's.
  const pid = /pid=(\d+)/.exec((await rows.first().textContent()) ?? '')?.[1] ?? '';
  await filter.getByRole('textbox', { name: 'pid' }).fill(pid);
  await waitIdle(page);
  for (const text of await log.locator('.ev-payload').allTextContents()) expect(text).toContain(`pid=${pid}`);

  // Back through the whole run: a page of older switches on CPU 2.
  await filter.getByRole('combobox', { name: 'Event' }).selectOption('sched_switch');
  await filter.getByRole('textbox', { name: 'pid' }).fill('');
  await filter.getByRole('textbox', { name: 'CPU' }).fill('2');
  await waitIdle(page);
  const newest = Number(await log.locator('button.ev-row').first().getAttribute('data-index'));
  await filter.getByRole('button', { name: 'Older' }).click();
  await waitIdle(page);
  const older = Number(await log.locator('button.ev-row').first().getAttribute('data-index'));
  expect(older).toBeLessThan(newest);
  for (const cpu of await log.locator('.ev-cpu').allTextContents()) expect(cpu).toBe('[002]');

  // A bad CPU is said, and the field keeps what was typed.
  await filter.getByRole('textbox', { name: 'CPU' }).fill('9');
  await expect(page.getByRole('region', { name: 'Event log' }).getByRole('alert')).toContainText('this machine has CPUs 0 to 7, not 9');
  await expect(filter.getByRole('textbox', { name: 'CPU' })).toHaveValue('9');

  // A pid that matches nothing, then every field emptied: the newest events again.
  await filter.getByRole('textbox', { name: 'CPU' }).fill('');
  await filter.getByRole('textbox', { name: 'pid' }).fill('4242');
  await waitIdle(page);
  await expect(page.getByRole('region', { name: 'Event log' })).toContainText('No event matches the filter');
  await filter.getByRole('textbox', { name: 'pid' }).fill('');
  await filter.getByRole('combobox', { name: 'Event' }).selectOption('');
  await expect(page.getByRole('region', { name: 'Event log' })).toContainText('The newest events.');
  expect(await log.locator('li').count()).toBeGreaterThan(5);
});

test('the live log rewrites its rows in place as the run goes on, rather than rebuilding them', async ({ page }) => {
  await openApp(page);
  for (let step = 0; step < 5; step++) await page.keyboard.press('.');
  await waitIdle(page);
  const log = page.getByRole('list', { name: 'Recent scheduler events' });
  const firstRow = log.locator('li').first();
  const before = Number(await firstRow.locator('button.ev-row').getAttribute('data-index'));
  // Mark the newest row's element, then let the run go on.
  await firstRow.evaluate((element) => element.setAttribute('data-probe', 'kept'));
  for (let step = 0; step < 5; step++) await page.keyboard.press('.');
  await waitIdle(page);
  const after = Number(await firstRow.locator('button.ev-row').getAttribute('data-index'));
  expect(after).toBeGreaterThan(before);
  // The same element shows the newest record now.
  await expect(firstRow).toHaveAttribute('data-probe', 'kept');
  await expect(log.locator('li[data-probe]')).toHaveCount(1);
});

test('each Step runs on to the next line of the log, passing over events that add none', async ({ page }) => {
  await openApp(page);
  // Into the run, where ticks that change nothing come between the scheduler's events.
  await page.keyboard.press(' ');
  await expect.poll(() => eventCount(page), { timeout: 20_000 }).toBeGreaterThan(2_000);
  await page.keyboard.press(' ');
  await waitIdle(page);
  const newest = async () => Number(await page.getByRole('list', { name: 'Recent scheduler events' }).locator('li').first().locator('button.ev-row').getAttribute('data-index'));
  let passedOver = 0;
  for (let step = 0; step < 25; step++) {
    const [index, events] = [await newest(), await eventCount(page)];
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await waitIdle(page);
    expect(await newest()).toBeGreaterThan(index);
    const handled = (await eventCount(page)) - events;
    expect(handled).toBeGreaterThanOrEqual(1);
    if (handled > 1) passedOver++;
  }
  expect(passedOver).toBeGreaterThan(0);
});
