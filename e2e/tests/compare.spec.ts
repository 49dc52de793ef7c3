import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

async function playALittle(page: Page) {
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('1/10×');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(() => page.evaluate(() => window.__schedlab?.events ?? 0)).toBeGreaterThan(3000);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
}

/** The machine's running pids, per CPU, for run A or run B. */
async function pids(page: Page, testId: string): Promise<string[]> {
  return page.locator(`svg[data-testid="${testId}"] g.cpu`).evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-pid') ?? ''));
}

test('two policies compared on one timeline, with a diff table and its Markdown', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Compare' }).click();
  await waitIdle(page);
  await expect(page.getByRole('button', { name: 'Compare' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('region', { name: 'Timeline A' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Timeline B' })).toBeVisible();
  // The charts say whose they are.
  await expect(page.getByTestId('charts-run')).toContainText('The charts follow run A');
  // The two machines share the main column: B's ends before the side column starts.
  const machineB = await page.getByRole('region', { name: 'Machine B' }).boundingBox();
  const inspector = await page.getByRole('region', { name: 'Inspector' }).boundingBox();
  expect(machineB && inspector && machineB.x + machineB.width <= inspector.x).toBe(true);
  const comparison = page.getByRole('region', { name: 'Comparison' });
  await expect(comparison.getByTestId('differs')).toContainText('nothing yet');
  // With the same settings, B is A.
  await playALittle(page);
  expect(await pids(page, 'machine-b')).toEqual(await pids(page, 'machine'));

  // The Policy panel edits run B: wake_affine off.
  await expect(page.getByRole('radiogroup', { name: 'Settings of run' }).getByRole('radio').nth(1)).toBeChecked();
  const policy = page.getByRole('region', { name: 'Policy' });
  await expect(policy.getByTestId('policy-run')).toHaveText('of run B');
  await policy.getByRole('checkbox', { name: 'wake_affine.enabled' }).click();
  await waitIdle(page);
  await expect(comparison.getByTestId('differs')).toHaveText('B differs from A by: policy.wake_affine.enabled: true → false');
  // B re-ran from 0 with the same seed and is back at A's time.
  const time = await page.getByTestId('sim-time').textContent();
  await expect(comparison).toContainText(`both at ${(time ?? '').replace(/ \/.*$/, '')}`);
  // Run A's settings are untouched.
  await page.getByRole('radiogroup', { name: 'Settings of run' }).getByRole('radio').nth(0).check();
  await expect(policy.getByRole('checkbox', { name: 'wake_affine.enabled' })).toBeChecked();

  const table = comparison.getByRole('table', { name: 'Metrics of A and B' });
  const row = (metric: string) => table.locator(`tr[data-metric="${metric}"] td`);
  await expect(row('wakeup latency: p99')).toHaveCount(3);
  for (const metric of ['wakeup latency: p99', 'throughput: throughput', 'CPU: utilisation', 'migrations: cross-LLC', 'lock contention: rq lock acquisitions that waited', 'frequency: average frequency']) {
    const cells = await row(metric).allTextContents();
    expect(cells[0], metric).toMatch(/^[\d,.]+$/);
    expect(cells[1], metric).toMatch(/^[\d,.]+$/);
    expect(cells[2], metric).toMatch(/%|new/);
  }
  // wake_affine decides where wakees run: a different policy gives different migrations.
  const migrations = await table.locator('tr[data-metric^="migrations:"] td').allTextContents();
  const aValues = migrations.filter((_, index) => index % 3 === 0);
  const bValues = migrations.filter((_, index) => index % 3 === 1);
  expect(aValues).not.toEqual(bValues);

  // The table as Markdown, for a mailing-list post.
  const downloading = page.waitForEvent('download');
  await comparison.getByRole('button', { name: 'Save Markdown' }).click();
  const file = await downloading;
  expect(file.suggestedFilename()).toBe('teaching-small-compare.md');
  const markdown = await readFile(await file.path(), 'utf8');
  const lines = markdown.split('\n');
  expect(lines[0]).toMatch(/^schedlab compare: teaching-small, seed 42, at \d+\.\d{6} s simulated$/);
  expect(lines[2]).toBe('B differs from A by: policy.wake_affine.enabled: true → false');
  expect(lines[4]).toBe('| metric | A | B | change |');
  expect(markdown).toMatch(/\| wakeup latency: p99 \(us\) \| [\d,.]+ \| [\d,.]+ \| [−+]?[\d.]+ % \|/);
  const p99 = await row('wakeup latency: p99').allTextContents();
  expect(markdown).toContain(`| wakeup latency: p99 (us) | ${p99[0]} | ${p99[1]} | ${p99[2]} |`);

  // One time axis: zooming timeline A zooms B alike.
  const lanesA = page.getByRole('region', { name: 'Timeline A' }).getByRole('group');
  await lanesA.focus();
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await page.keyboard.press('ArrowLeft');
  const window = await page.getByTestId('timeline-window').textContent();
  await expect(page.getByTestId('timeline-window-b')).toHaveText(window ?? '');

  // A share link holds both runs' settings and the window: a fresh page opens in compare mode at the same time.
  await page.getByRole('button', { name: 'Share link' }).click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toMatch(/&view=\d+%3A\d+&cmp=1&bset=policy\.wake_affine\.enabled%3Dfalse$/);
  const context = await page.context().browser()!.newContext({ viewport: { width: 1440, height: 1000 } });
  const opened = await context.newPage();
  await opened.goto(link);
  await waitIdle(opened);
  await expect(opened.getByRole('button', { name: 'Compare' })).toHaveAttribute('aria-pressed', 'true');
  await expect(opened.getByTestId('sim-time')).toHaveText(time ?? '');
  await expect(opened.getByRole('region', { name: 'Comparison' }).getByTestId('differs')).toHaveText(
    'B differs from A by: policy.wake_affine.enabled: true → false',
  );
  await expect(opened.locator('tr[data-metric="wakeup latency: p99"] td')).toHaveText(p99);
  await expect(opened.getByTestId('timeline-window')).toHaveText(window ?? '');
  await expect(opened.getByTestId('timeline-window-b')).toHaveText(window ?? '');
  await context.close();

  // Stop comparing: one run again.
  await comparison.getByRole('button', { name: 'Stop comparing' }).click();
  await expect(page.getByRole('region', { name: 'Timeline' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Comparison' })).toHaveCount(0);
  await expect(page.getByTestId('charts-run')).toHaveCount(0);
});

test('a reload keeps compare mode and run B\'s settings', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Compare' }).click();
  await waitIdle(page);
  await page.getByRole('region', { name: 'Policy' }).getByRole('checkbox', { name: 'sis_scan.enabled' }).click();
  await waitIdle(page);
  const differs = page.getByRole('region', { name: 'Comparison' }).getByTestId('differs');
  await expect(differs).toHaveText('B differs from A by: policy.sis_scan.enabled: false → true');
  await page.reload();
  await waitIdle(page);
  await expect(page.getByRole('button', { name: 'Compare' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('region', { name: 'Comparison' }).getByTestId('differs')).toHaveText('B differs from A by: policy.sis_scan.enabled: false → true');
  // Stopped, a reload opens one run.
  await page.getByRole('button', { name: 'Stop comparing' }).click();
  await page.reload();
  await waitIdle(page);
  await expect(page.getByRole('button', { name: 'Compare' })).toHaveAttribute('aria-pressed', 'false');
});
