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
