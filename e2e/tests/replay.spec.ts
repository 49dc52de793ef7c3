import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

const FIXTURES = '../crates/sched-core/tests/fixtures/ftrace';

test('a pasted ftrace log replays with its report, and re-simulates here under another policy', async ({ page }) => {
  await openApp(page);
  const replay = page.getByRole('region', { name: 'Replay' });
  // Empty: said, not failed.
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByRole('alert')).toContainText('the box is empty');

  const log = await readFile(`${FIXTURES}/ftrace_current.txt`, 'utf8');
  await replay.getByRole('textbox', { name: 'Paste ftrace log' }).fill(log);
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  const report = replay.getByTestId('replay-report');
  await expect(report).toBeVisible();
  await expect(replay.getByTestId('replay-format')).not.toHaveText('');
  await expect(replay.getByTestId('replay-events')).toContainText('sched_switch');
  await expect(replay.getByTestId('replay-latency')).toContainText(/p50 [\d,.]+ us, p99 [\d,.]+ us/);

  // Re-simulate: the log's workload becomes the running scenario, in every view.
  await replay.getByRole('button', { name: 'Re-simulate' }).click();
  await waitIdle(page);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('custom');
  await expect(page.getByRole('textbox', { name: 'Scenario JSON' })).toHaveValue(/"title": "what if: pasted log"/);
  await replay.getByRole('button', { name: 'Log against the simulation' }).click();
  await waitIdle(page);
  const table = replay.getByRole('table', { name: 'The log against the simulation' });
  await expect(table.locator('tbody tr')).toHaveCount(5);
  await expect(table.locator('tbody tr').first().locator('td').nth(1)).toHaveText(/^[\d,.]+$/);
  // And under another policy, from the Policy panel.
  await page.getByRole('region', { name: 'Policy' }).getByRole('checkbox', { name: 'wake_affine.enabled' }).click();
  await waitIdle(page);
  await expect(page.getByRole('region', { name: 'Policy' }).getByTestId('policy-diff')).toContainText('wake_affine.enabled');
});

test('a gzip-compressed log file opens, and garbage gives a report, not a crash', async ({ page }) => {
  await openApp(page);
  const replay = page.getByRole('region', { name: 'Replay' });
  const log = await readFile(`${FIXTURES}/trace_cmd.txt`);
  await replay.getByLabel('Open a log file').setInputFiles({ name: 'trace.txt.gz', mimeType: 'application/gzip', buffer: gzipSync(log) });
  await expect(replay.getByRole('textbox', { name: 'Paste ftrace log' })).toHaveValue(log.toString('utf8'));
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByTestId('replay-events')).toContainText('sched_switch');

  await replay.getByRole('textbox', { name: 'Paste ftrace log' }).fill('\u0000\u0001 not a trace at all\n'.repeat(50));
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByTestId('replay-events')).toHaveText('none');
  await expect(replay).toContainText('there is no workload to re-simulate');
});
