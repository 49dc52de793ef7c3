import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('TurboSched on POWER9 with the power model: socket frequency and power against the budget, deep-idle cores, the Frequency chart', async ({ page }) => {
  await openApp(page);
  const machine = page.locator('svg[data-testid="machine"]');
  // The default scenario runs no power model: no figures in the socket headers, no Frequency chart.
  await expect(machine.locator('g.socket')).not.toHaveCount(0);
  await expect(machine.locator('g.socket-power')).toHaveCount(0);
  await expect(page.getByTestId('frequency-chart')).toHaveCount(0);

  await chooseScenario(page, 'turbo-bench-power9-pack');
  // turbo_bench reports operations per second, not wakeup latency: the latency table says so.
  await expect(page.getByTestId('latency-unmeasured')).toContainText('do not measure wakeup latency');
  // The legend names the platform's idle states, and the jitter mark.
  const legend = page.getByTestId('power-legend');
  await expect(legend).toContainText('shallow idle: stop2');
  await expect(legend).toContainText('deep idle: stop4');
  await expect(page.getByTestId('jitter-legend')).toContainText('jitter task (TurboSched)');

  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  const charts = page.getByRole('region', { name: 'Charts' });
  const line = charts.locator('path.freq-line[data-socket="0"]');
  // A few dozen frames sampled: well past the jitter threads' start (17 ms) at 1/10x.
  await expect.poll(async () => Number(await line.getAttribute('data-points'))).toBeGreaterThan(30);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);

  // The chart: its title, one line for the one socket, drawn through its points.
  await expect(charts.getByRole('heading', { name: 'Frequency over time' })).toBeVisible();
  await expect(charts.locator('path.freq-line')).toHaveCount(1);
  expect((await line.getAttribute('d'))?.split(/[MLHV]/).length ?? 0).toBeGreaterThan(10);
  await expect(charts.getByTestId('frequency-chart').getByRole('img')).toHaveAttribute('aria-label', /^Frequency over time, one line per socket: socket 0 \d\.\d\d GHz now$/);

  // The socket header: its frequency now, and its power against its budget.
  const socket = machine.locator('g.socket-power[data-socket="0"]');
  await expect(socket.locator('text.socket-mhz')).toHaveText(/^\d\.\d\d GHz$/);
  await expect(socket.locator('text.socket-watts')).toHaveText(/^\d+(\.\d)? W \/ \d+ W$/);
  const mhz = Number(await socket.getAttribute('data-mhz'));
  expect(mhz).toBeGreaterThanOrEqual(3000);
  expect(mhz).toBeLessThanOrEqual(4500);
  expect(Number(await socket.getAttribute('data-watts'))).toBeGreaterThan(0);
  expect(Number(await socket.getAttribute('data-budget'))).toBeGreaterThan(Number(await socket.getAttribute('data-watts')) / 2);
  // The chart's legend says the same frequency as the header.
  await expect(charts.locator('li[data-socket="0"] strong')).toHaveText((await socket.locator('text.socket-mhz').textContent()) ?? '');

  // Eight CPU-bound threads, their jitter packed onto busy cores: most of the 22 cores sleep in deep idle.
  const deep = machine.locator('g.core-idle[data-idle="deep"]');
  expect(await deep.count()).toBeGreaterThan(5);
  await expect(deep.first().locator('text.core-idle-label')).toHaveText('deep idle');
  await expect(deep.first().locator('title')).toHaveText(/^Core \d+: deep idle \(stop4\): exit latency 100 us/);
  // And the busy cores are active.
  expect(await machine.locator('g.core-idle[data-idle="active"]').count()).toBeGreaterThan(0);

  // A jitter thread's wakeup, explained: the inspector says it is TurboSched's jitter class.
  const log = page.getByRole('list', { name: 'Recent scheduler events' });
  const jitterWakeup = log.locator('li.ev-sched_wakeup', { hasText: 'comm=turbo_jitter' });
  for (let steps = 0; steps < 500 && (await jitterWakeup.count()) === 0; steps++) {
    await page.getByRole('button', { name: 'Step' }).click();
    await waitIdle(page);
  }
  await jitterWakeup.first().getByRole('button').click();
  await waitIdle(page);
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector.getByTestId('chosen-cpu')).toContainText('turbo_jitter');
  await expect(inspector.getByTestId('jitter-tag')).toHaveText('jitter (TurboSched)');
  // Its packing search is a step: the cores of its node it looked at, and where it ended.
  await expect(inspector).toContainText(/TurboSched: a jitter task \(util \d+ %\) looks in node 0, in CPU order, for a busy core .*: core \d+ at \d+ %: (not busy|too full|packed)/);
  await expect(inspector).toContainText(/packed onto CPU \d+, the core's least loaded thread|no busy core can take it: the default path places it/);
  await expect(page.getByTestId('selected-task').getByTestId('jitter-tag')).toBeVisible();
});
