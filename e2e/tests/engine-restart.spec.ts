import { expect, test, type Page, type Worker } from '@playwright/test';
import { eventCount, openApp, waitIdle } from './helpers';

/** The engine's worker (named `schedlab-engine`), among the page's workers. */
async function engineWorker(page: Page): Promise<Worker> {
  for (const worker of page.workers()) {
    if ((await worker.evaluate(() => self.name)) === 'schedlab-engine') return worker;
  }
  throw new Error('no engine worker');
}

test('an engine that stops on an error is reported, and restarting it loads the scenario again and keeps the typed text', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Step' }).click();
  await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  expect(await eventCount(page)).toBe(2);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const unfinished = `${await editor.inputValue()} unfinished`;
  await editor.fill(unfinished);

  // An error nothing in the worker catches.
  const old = await engineWorker(page);
  const closed = new Promise<void>((resolve) => old.on('close', () => resolve()));
  await old.evaluate(() => {
    setTimeout(() => {
      throw new Error('simulated crash of the engine');
    }, 0);
  });
  const banner = page.getByRole('alert', { name: 'Engine' });
  await expect(banner).toContainText('The simulation engine stopped.');
  await expect(banner).toContainText('simulated crash of the engine');
  await expect(banner).toContainText('A restart starts a fresh engine');
  // Nothing more is asked of it.
  await expect(page.getByRole('button', { name: 'Step' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Play', exact: true })).toBeDisabled();

  await banner.getByRole('button', { name: 'Restart the engine' }).click();
  await closed;
  await waitIdle(page);
  await expect(banner).toContainText('The simulation engine was restarted.');
  await expect(banner).toContainText('teaching-small loaded again from the start, with the same settings');
  expect(await eventCount(page)).toBe(0);
  await expect(editor).toHaveValue(unfinished);
  await expect(page.locator('svg[data-testid="machine"] g.cpu')).toHaveCount(8);

  // The fresh engine runs.
  await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  expect(await eventCount(page)).toBe(1);
  await banner.getByRole('button', { name: 'Dismiss' }).click();
  await expect(banner).toHaveCount(0);
});

test('in compare mode, run B\'s engine restarted comes back to A\'s time', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Compare' }).click();
  await waitIdle(page);
  for (let step = 0; step < 5; step += 1) await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  const comparison = page.getByRole('region', { name: 'Comparison' });
  const time = ((await page.getByTestId('sim-time').textContent()) ?? '').replace(/ \/.*$/, '');
  await expect(comparison).toContainText(`both at ${time}`);

  // B's worker is the second engine.
  const engines = [];
  for (const worker of page.workers()) if ((await worker.evaluate(() => self.name)) === 'schedlab-engine') engines.push(worker);
  expect(engines).toHaveLength(2);
  const b = engines[1];
  if (!b) throw new Error('no engine for run B');
  await b.evaluate(() => {
    setTimeout(() => {
      throw new Error('simulated crash of engine B');
    }, 0);
  });
  const banner = page.getByRole('alert', { name: 'Engine of run B' });
  await expect(banner).toContainText('simulated crash of engine B');
  await banner.getByRole('button', { name: 'Restart the engine' }).click();
  await waitIdle(page);
  await expect(banner).toContainText('Run B: its simulation engine was restarted.');
  // A has not moved, and B stands with it again.
  await expect(page.getByTestId('sim-time')).toContainText(time);
  await expect(comparison).toContainText(`both at ${time}`);
  // With the same settings, B at A's time runs the same tasks.
  const pids = (testId: string) => page.locator(`svg[data-testid="${testId}"] g.cpu`).evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-pid') ?? ''));
  expect(await pids('machine-b')).toEqual(await pids('machine'));
  expect((await pids('machine')).some((pid) => pid !== '')).toBe(true);
});
