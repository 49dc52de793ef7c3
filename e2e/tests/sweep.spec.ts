import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { openApp } from './helpers';

async function download(page: Page, button: string): Promise<{ name: string; text: string }> {
  const downloading = page.waitForEvent('download');
  await page.getByRole('region', { name: 'Sweep' }).getByRole('button', { name: button }).click();
  const file = await downloading;
  return { name: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
}

test('a small sweep runs in the background and is plotted with its spread over seeds', async ({ page }) => {
  await openApp(page);
  const sweep = page.getByRole('region', { name: 'Sweep' });
  await sweep.getByRole('textbox', { name: 'Vary' }).fill('policy.wake_affine.enabled=true,false\nworkloads.0.worker_threads=2,4,6');
  await sweep.getByRole('textbox', { name: 'Seeds' }).fill('1..3');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();

  const plot = sweep.getByTestId('sweep-plot');
  await expect(plot).toBeVisible({ timeout: 60_000 });
  // Two lines (wake_affine on and off), each over the three thread counts.
  const series = plot.locator('g.sweep-series');
  await expect(series).toHaveCount(2);
  await expect(series.nth(0)).toHaveAttribute('data-label', 'policy.wake_affine.enabled=true');
  await expect(series.nth(0)).toHaveAttribute('data-points', '3');
  await expect(series.nth(1).locator('path.sweep-spread')).toHaveCount(3);
  await expect(sweep.getByRole('combobox', { name: 'X axis' })).toHaveValue('workloads.0.worker_threads');
  await expect(sweep).toContainText('schedlab sweep teaching-small --vary policy.wake_affine.enabled=true,false --vary workloads.0.worker_threads=2,4,6 --seeds 1..3 --json');

  // The CSV holds each point's settings and the metric's median, min and max; the
  // numbers are the CLI's (`schedlab sweep` above prints the same p99s).
  const csv = await download(page, 'Points CSV');
  expect(csv.name).toBe('teaching-small-sweep.csv');
  const rows = csv.text.trim().split('\n');
  expect(rows[0]).toBe('policy.wake_affine.enabled,workloads.0.worker_threads,wakeup_latency_us.p99 median,wakeup_latency_us.p99 min,wakeup_latency_us.p99 max');
  expect(rows).toHaveLength(7);
  for (const row of rows.slice(1)) {
    const [, threads, median, low, high] = row.split(',').map(Number);
    expect([2, 4, 6]).toContain(threads);
    expect(low).toBeLessThanOrEqual(median ?? NaN);
    expect(median).toBeLessThanOrEqual(high ?? NaN);
  }
  // More workers than the little machine has CPUs for queue up: p99 grows with them.
  const p99 = (threads: number) => Number(rows.find((row) => row.startsWith(`true,${threads},`))?.split(',')[2]);
  expect(p99(6)).toBeGreaterThan(p99(2));

  // Another metric re-plots without re-running.
  await sweep.getByRole('combobox', { name: 'Metric' }).selectOption('throughput.value');
  await expect(plot).toHaveAttribute('aria-label', /^throughput \(requests\/s\) against workloads\.0\.worker_threads/);
  const svg = await download(page, 'Plot SVG');
  expect(svg.text).toContain('<svg');
  expect(svg.text).toContain('throughput (requests/s)');
  expect(svg.text.match(/class="sweep-point"/g)).toHaveLength(6);
  // A patch's benefit: each line against the first, per seed, in %.
  await sweep.getByRole('combobox', { name: 'Show' }).selectOption('change');
  await expect(series).toHaveCount(1);
  await expect(series.nth(0)).toHaveAttribute('data-label', 'policy.wake_affine.enabled=false vs policy.wake_affine.enabled=true');
  await expect(plot).toHaveAttribute('aria-label', /^throughput change, % against workloads\.0\.worker_threads/);
  await sweep.getByRole('combobox', { name: 'Show' }).selectOption('values');
  // The plot as PNG: an image of the plot at twice its size.
  const pngDownload = page.waitForEvent('download');
  await sweep.getByRole('button', { name: 'Plot PNG' }).click();
  const png = await readFile(await (await pngDownload).path());
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const plotWidth = await plot.evaluate((element) => (element as SVGSVGElement).viewBox.baseVal.width);
  expect(png.readUInt32BE(16)).toBe(Math.round(plotWidth * 2));
  const json = JSON.parse((await download(page, 'Points JSON')).text) as { seeds: number[]; points: { set: Record<string, unknown> }[] };
  expect(json.seeds).toEqual([1, 2, 3]);
  expect(json.points[5]?.set).toEqual({ 'policy.wake_affine.enabled': false, 'workloads.0.worker_threads': 6 });
});

test('a sweep can be cancelled, and bad input is said with its line', async ({ page }) => {
  await openApp(page);
  const sweep = page.getByRole('region', { name: 'Sweep' });
  const vary = sweep.getByRole('textbox', { name: 'Vary' });
  await vary.fill('workloads.0.worker_threads=two');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();
  await expect(sweep.getByRole('alert')).toContainText('--vary workloads.0.worker_threads');
  await expect(vary).toHaveValue('workloads.0.worker_threads=two');
  await vary.fill('oops');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();
  await expect(sweep.getByRole('alert')).toContainText('vary line 1');
  // A value the schema refuses is refused before anything runs, as the CLI words it.
  await vary.fill('knobs.hz=5,250');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();
  await expect(sweep.getByRole('alert')).toContainText('point 0 (knobs.hz=5): knobs.hz: must be at least 100, got 5');
  await expect(sweep.getByTestId('sweep-plot')).toHaveCount(0);
  // A path on two lines would keep only one of them.
  await vary.fill('kernel=4.6\nkernel=6.5');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();
  await expect(sweep.getByRole('alert')).toContainText('`kernel` is varied twice (`kernel=4.6` and `kernel=6.5`): give its values in one list, `kernel=4.6,6.5`');
  // A Policy setting named as the Policy panel shows it is pointed to its path.
  await vary.fill('turbo_pack.busy_threshold_pct=20,50');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();
  await expect(sweep.getByRole('alert')).toContainText('did you mean `policy.turbo_pack.busy_threshold_pct`?');
  await expect(sweep.getByTestId('sweep-plot')).toHaveCount(0);

  // A long sweep: cancelled part-way, nothing is plotted.
  await vary.fill('duration_ms=20000\nworkloads.0.worker_threads=1..8');
  await sweep.getByRole('textbox', { name: 'Seeds' }).fill('1..10');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();
  await expect(sweep.getByRole('progressbar', { name: 'Sweep progress' })).toBeVisible();
  await sweep.getByRole('button', { name: 'Cancel' }).click();
  await expect(sweep.getByRole('status')).toContainText('Cancelled after');
  await expect(sweep.getByTestId('sweep-plot')).toHaveCount(0);
  // The form is kept, and a new sweep runs after the cancel.
  await expect(vary).toHaveValue('duration_ms=20000\nworkloads.0.worker_threads=1..8');
  await vary.fill('workloads.0.worker_threads=2,3');
  await sweep.getByRole('textbox', { name: 'Seeds' }).fill('1,2');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();
  await expect(sweep.getByTestId('sweep-plot').locator('g.sweep-series')).toHaveCount(1, { timeout: 60_000 });
});
