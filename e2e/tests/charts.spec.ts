import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test('the charts draw the run over time as it plays: latency, utilisation and the gap, migrations by distance, lock contention', async ({ page }) => {
  await openApp(page);
  const charts = page.getByRole('region', { name: 'Charts' });
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  const utilisation = charts.getByTestId('utilisation-chart').locator('path.chart-line[data-line="utilisation"]');
  await expect.poll(async () => Number(await utilisation.getAttribute('data-points')), { timeout: 20_000 }).toBeGreaterThan(20);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);

  for (const [chart, lines] of [
    ['latency-chart', ['p50', 'p99']],
    ['utilisation-chart', ['utilisation', 'gap']],
    ['migrations-chart', ['smt', 'llc', 'cross-llc', 'cross-numa']],
    ['lock-chart', ['lock']],
  ] as const) {
    const figure = charts.getByTestId(chart);
    for (const line of lines) {
      const path = figure.locator(`path.chart-line[data-line="${line}"]`);
      // Drawn through its points, from the start to the playhead.
      expect((await path.getAttribute('d'))?.split('L').length ?? 0, `${chart} ${line}`).toBeGreaterThan(10);
    }
  }
  // Each chart says its latest figures to a screen reader; they match the panels.
  await expect(charts.getByTestId('latency-chart').getByRole('img')).toHaveAttribute('aria-label', /^Wakeup latency so far: p50 [\d.]+ us, p99 [\d.]+ us$/);
  const p99 = Number((await page.getByTestId('latency-99.0th').textContent())?.replace(/,/g, ''));
  const label = (await charts.getByTestId('latency-chart').getByRole('img').getAttribute('aria-label')) ?? '';
  // The label has a decimal, the table rounds to the microsecond.
  expect(Math.abs(Number(/p99 ([\d.]+) us/.exec(label)?.[1]) - p99)).toBeLessThanOrEqual(0.5);
  await expect(charts.getByTestId('utilisation-chart').getByRole('img')).toHaveAttribute('aria-label', /busy \d+\.\d %/);
  // The histogram counts every wakeup the latency table counts, and its CDF ends at 100 %.
  const counts = await charts.getByTestId('latency-histogram').locator('rect.hist-bar').evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('data-count'))));
  const samples = Number((await page.getByTestId('latency-samples').textContent())?.replace(/,/g, ''));
  expect(counts.reduce((sum, count) => sum + count, 0)).toBe(samples);
  await expect(charts.getByTestId('latency-histogram').locator('path.cdf')).toHaveAttribute('d', /^M/);
});

test('a chart reads out its values at a time, under the pointer or by the arrow keys, without stepping the run', async ({ page }) => {
  await openApp(page);
  const charts = page.getByRole('region', { name: 'Charts' });
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  const utilisation = charts.getByTestId('utilisation-chart');
  const path = utilisation.locator('path.chart-line[data-line="utilisation"]');
  await expect.poll(async () => Number(await path.getAttribute('data-points')), { timeout: 20_000 }).toBeGreaterThan(20);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  const readout = utilisation.getByTestId('utilisation-chart-readout');
  await expect(readout).toHaveText(/^now: busy \d+\.\d %, idle while runnable/);

  // The pointer halfway along the plot: the values at a time about half the run's, a line and a dot on each line there.
  const host = utilisation.getByRole('group');
  await host.scrollIntoViewIfNeeded();
  const box = await host.boundingBox();
  if (!box) throw new Error('chart not drawn');
  await page.mouse.move(box.x + 64 + (box.width - 78) / 2, box.y + 60);
  await expect(readout).toHaveText(/^at \d\.\d{6} s: busy \d+\.\d %, idle while a task waited in the LLC \d+\.\d %$/);
  await expect(utilisation.locator('line.cursor-line')).toHaveCount(1);
  await expect(utilisation.locator('circle.cursor-dot')).toHaveCount(2);
  const now = Number(/t = ([\d.]+) s/.exec((await page.getByTestId('sim-time').textContent()) ?? '')?.[1]);
  const at = Number(/^at ([\d.]+) s/.exec((await readout.textContent()) ?? '')?.[1]);
  expect(Math.abs(at - now / 2)).toBeLessThan(now * 0.1);
  await page.mouse.move(0, 0);
  await expect(readout).toHaveText(/^now: /);
  await expect(utilisation.locator('line.cursor-line')).toHaveCount(0);

  // The keys: Home reads the first point, ArrowRight the next; the run does not step.
  const events = await page.evaluate(() => window.__schedlab?.events);
  await host.focus();
  await page.keyboard.press('Home');
  const first = /^at ([\d.]+) s/.exec((await readout.textContent()) ?? '')?.[1];
  expect(first).toBeDefined();
  await page.keyboard.press('ArrowRight');
  await expect(readout).not.toHaveText(new RegExp(`^at ${first} s`));
  const second = Number(/^at ([\d.]+) s/.exec((await readout.textContent()) ?? '')?.[1]);
  expect(second).toBeGreaterThan(Number(first));
  await waitIdle(page);
  expect(await page.evaluate(() => window.__schedlab?.events)).toBe(events);
  await page.keyboard.press('Escape');
  await expect(readout).toHaveText(/^now: /);
});

test('the latency histogram reads out the bucket under the pointer or chosen by the keys', async ({ page }) => {
  await openApp(page);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(async () => Number((await page.getByTestId('latency-samples').textContent())?.replace(/,/g, '')), { timeout: 20_000 }).toBeGreaterThan(100);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  const histogram = page.getByRole('region', { name: 'Charts' }).getByTestId('latency-histogram');
  const readout = histogram.getByTestId('latency-histogram-readout');
  // Unpointed: the whole, counted as the latency table counts it.
  const samples = Number((await page.getByTestId('latency-samples').textContent())?.replace(/,/g, ''));
  await expect(readout).toHaveText(new RegExp(`^${samples.toLocaleString('en-US')} wakeups; most up to \\d+ (us|ms) \\([\\d.]+ %\\); 99 % up to \\d+ (us|ms)$`));

  // The pointer on the fullest bar reads out that bar's count and marks it.
  const bars = histogram.locator('rect.hist-bar');
  const counts = await bars.evaluateAll((all) => all.map((bar) => Number(bar.getAttribute('data-count'))));
  const fullest = counts.indexOf(Math.max(...counts));
  await histogram.scrollIntoViewIfNeeded();
  const bar = await bars.nth(fullest).boundingBox();
  if (!bar) throw new Error('bar not drawn');
  await page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height - 2);
  await expect(readout).toHaveText(new RegExp(`^up to \\d+ (us|ms)( \\(from \\d+ (us|ms)\\))?: ${counts[fullest]!.toLocaleString('en-US')} wakeups, [\\d.]+ %; [\\d.]+ % of wakeups up to`));
  await expect(histogram.locator('rect.hist-bar.selected')).toHaveCount(1);
  await expect(bars.nth(fullest)).toHaveClass(/selected/);
  await expect(histogram.locator('rect.hist-band')).toHaveCount(1);
  await page.mouse.move(0, 0);
  await expect(histogram.locator('rect.hist-bar.selected')).toHaveCount(0);
  await expect(histogram.locator('rect.hist-band')).toHaveCount(0);

  // The keys: Home reads the first bucket (up to 1 us), End the last, where the share reaches 100 %; the run does not step.
  const events = await page.evaluate(() => window.__schedlab?.events);
  await histogram.getByRole('group').focus();
  await page.keyboard.press('Home');
  await expect(readout).toHaveText(/^up to 1 us: /);
  await page.keyboard.press('End');
  await expect(readout).toHaveText(/; 100\.0 % of wakeups up to \d+ (us|ms)$/);
  expect(await page.evaluate(() => window.__schedlab?.events)).toBe(events);
  await page.keyboard.press('Escape');
  await expect(readout).toHaveText(/ wakeups; most up to /);
});
