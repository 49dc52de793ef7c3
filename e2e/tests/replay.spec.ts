import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { cpuPids, eventCount, exportFile, openApp, waitIdle } from './helpers';

const FIXTURES = '../crates/sched-core/tests/fixtures/ftrace';

/** Per CPU, the `next_pid` of the log's last `sched_switch` there. */
function lastRunning(log: string): Map<number, string> {
  const running = new Map<number, string>();
  for (const match of log.matchAll(/\[(\d+)\][^\n]*sched_switch:[^\n]*next_pid=(\d+)/g)) running.set(Number(match[1]), match[2]!);
  return running;
}

test('a pasted ftrace log plays in the machine, the timeline and the event log, and re-simulates under another policy', async ({ page }) => {
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
  await waitIdle(page);
  await expect(replay.getByTestId('replay-format')).not.toHaveText('');
  await expect(replay.getByTestId('replay-events')).toContainText('sched_switch');
  await expect(replay.getByTestId('replay-latency')).toContainText(/p50 [\d,.]+ us, p99 [\d,.]+ us/);

  // The log is what plays now: the machine has its 4 CPUs, the clock starts at its first event.
  await expect(replay.getByTestId('replay-playing')).toContainText('pasted log');
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('log');
  await expect(page.getByTestId('log-source')).toContainText('pasted log');
  expect(await cpuPids(page)).toHaveLength(4);
  // The editor still holds the last scenario's text, and says that it is not what plays.
  await expect(page.getByRole('status', { name: 'Text check' })).toHaveText('Valid. A replayed log is playing, not this text: Apply runs this scenario instead.');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await waitIdle(page);
  // At its end each CPU runs what the log's last switch there put on it.
  const pids = await cpuPids(page);
  for (const [cpu, pid] of lastRunning(log)) expect(pids[cpu], `CPU ${cpu}`).toBe(pid);
  // Every event line read was played (fork, exec and stat_runtime have no record of their own).
  const switches = (log.match(/sched_switch:/g) ?? []).length;
  expect(await page.evaluate(() => window.__schedlab?.timeline.switches)).toBe(switches);
  expect(await eventCount(page)).toBe(
    (log.match(/: (sched_(switch|wakeup|wakeup_new|waking|migrate_task|process_fork|process_exec|process_exit|stat_runtime)|cpu_frequency|cpu_idle):/g) ?? []).length,
  );
  const eventLog = page.getByRole('region', { name: 'Event log' });
  await expect(eventLog).toContainText('sched_migrate_task');
  await expect(eventLog).toContainText('comm=Web Content pid=4100');

  // Re-simulate: the log's workload becomes the running scenario, in every view.
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await replay.getByRole('button', { name: 'Re-simulate' }).click();
  await waitIdle(page);
  // Said first, so that a re-simulation that did not load fails with its reason.
  await expect(replay.getByRole('alert')).toHaveCount(0);
  await expect(page.getByRole('list', { name: 'Problems in the text' })).toHaveCount(0);
  expect(pageErrors).toEqual([]);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('custom');
  await expect(page.getByRole('textbox', { name: 'Scenario JSON' })).toHaveValue(/"title": "what if: pasted log"/);
  // Said where the button is; and the editor's text before it, the last scenario's, was no edit to set aside.
  await expect(replay.getByTestId('replay-resimulated')).toContainText('the running scenario');
  await expect(page.getByText(/was set aside/)).toHaveCount(0);
  // Two tasks of the log share a comm: the legend names it once, with how many.
  await expect(page.getByRole('list', { name: 'Workloads' })).toContainText('tasks: kworker/u8:2-ev, Web Content, a:b c-d ×2, <...>');
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

test("a log's frequencies, idle states and charged runtime are read and summed up", async ({ page }) => {
  await openApp(page);
  const replay = page.getByRole('region', { name: 'Replay' });
  await replay.getByRole('textbox', { name: 'Paste ftrace log' }).fill(await readFile(`${FIXTURES}/power_events.txt`, 'utf8'));
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await waitIdle(page);
  await expect(replay.getByTestId('replay-events')).toHaveText('cpu_frequency 3, cpu_idle 6, sched_stat_runtime 1, sched_switch 2');
  await expect(replay.getByTestId('replay-frequency')).toHaveText('2 CPUs: 1200 to 2400 MHz, mean 2250 MHz (3 changes)');
  await expect(replay.getByTestId('replay-idle')).toHaveText('2 CPUs: active 34.2 %, state 0 0.0 %, state 1 32.5 %, state 2 33.3 %');
  await expect(replay.getByTestId('replay-runtime')).toHaveText('0.190 ms to 1 task (1 event)');
  // Played, the frequency changes are in the event log as the power model writes them.
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await waitIdle(page);
  await expect(page.getByRole('region', { name: 'Event log' })).toContainText('cpu_frequency state=1200000 cpu_id=0');
});

test('a simulation exported as ftrace text replays to the same schedule', async ({ page }) => {
  await openApp(page);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(() => (window.__schedlab?.events ?? 0) > 3000);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await waitIdle(page);
  const simulated = await cpuPids(page);
  const switches = await page.evaluate(() => window.__schedlab?.timeline.switches ?? 0);
  const exported = await exportFile(page, 'Trace (ftrace text: Perfetto, trace-cmd, replay)');
  const replay = page.getByRole('region', { name: 'Replay' });
  await replay.getByLabel('Open a log file').setInputFiles({ name: exported.name, mimeType: 'text/plain', buffer: exported.bytes });
  await expect(replay.getByTestId('replay-file')).toContainText(exported.name);
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByTestId('replay-playing')).toBeVisible();
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await waitIdle(page);
  expect(await page.evaluate(() => window.__schedlab?.timeline.switches)).toBe(switches);
  expect(await cpuPids(page)).toEqual(simulated);
  // Back to the start, and forward again: the same end.
  await page.getByRole('button', { name: 'Reset', exact: true }).click();
  await waitIdle(page);
  expect(await eventCount(page)).toBe(0);
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await waitIdle(page);
  expect(await cpuPids(page)).toEqual(simulated);
});

test('compare mode sets the log, as A, beside the simulation of its workload, as B', async ({ page }) => {
  await openApp(page);
  const replay = page.getByRole('region', { name: 'Replay' });
  const log = await readFile(`${FIXTURES}/ftrace_current.txt`, 'utf8');
  await replay.getByRole('textbox', { name: 'Paste ftrace log' }).fill(log);
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByTestId('replay-playing')).toBeVisible();
  await waitIdle(page);
  await page.getByRole('button', { name: 'Compare' }).click();
  await waitIdle(page);
  const comparison = page.getByRole('region', { name: 'Comparison' });
  await expect(comparison.getByTestId('comparison-what')).toContainText('A is the log pasted log; B simulates its workload');
  await expect(page.getByRole('region', { name: 'Machine B' })).toBeVisible();
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await waitIdle(page);
  const table = comparison.getByRole('table', { name: 'Metrics of A and B' });
  for (const metric of ['CPU: context switches', 'CPU: wakeups', 'wakeup latency: p50']) {
    const cells = await table.locator(`tr[data-metric="${metric}"] td`).allTextContents();
    expect(cells[0], metric).toMatch(/^[\d,.]+$/);
    expect(cells[1], metric).toMatch(/^[\d,.]+$/);
  }
  // A's context switches are the log's.
  const switches = (log.match(/sched_switch:/g) ?? []).length;
  expect((await table.locator('tr[data-metric="CPU: context switches"] td').first().textContent())?.replace(/,/g, '')).toBe(String(switches));
});

test('a gzip-compressed log file opens, and garbage gives a message, not a crash, keeping the run', async ({ page }) => {
  await openApp(page);
  const replay = page.getByRole('region', { name: 'Replay' });
  const box = replay.getByRole('textbox', { name: 'Paste ftrace log' });
  await box.fill('what I typed stays');
  const log = await readFile(`${FIXTURES}/trace_cmd.txt`);
  // A file dropped on the box is named beside the picker (the browser's own input would read "No file chosen").
  await expect(replay.getByTestId('replay-file-name')).toHaveText('none chosen');
  const dataTransfer = await page.evaluateHandle((text) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'dropped.txt', { type: 'text/plain' }));
    return transfer;
  }, log.toString());
  await box.dispatchEvent('drop', { dataTransfer });
  await expect(replay.getByTestId('replay-file-name')).toHaveText('dropped.txt');
  await expect(replay.getByTestId('replay-file')).toContainText('dropped.txt');
  await replay.getByLabel('Open a log file').setInputFiles({ name: 'trace.txt.gz', mimeType: 'application/gzip', buffer: gzipSync(log) });
  await expect(replay.getByTestId('replay-file')).toContainText('trace.txt.gz');
  await expect(replay.getByTestId('replay-file-name')).toHaveText('trace.txt.gz');
  await expect(box).toHaveValue('what I typed stays');
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByTestId('replay-events')).toContainText('sched_switch');
  await expect(replay.getByTestId('replay-playing')).toContainText('trace.txt.gz');

  // A file that says it is gzip and is not: a message, and the log that was playing stays.
  await replay.getByLabel('Open a log file').setInputFiles({ name: 'broken.gz', mimeType: 'application/gzip', buffer: Buffer.concat([gzipSync(log).subarray(0, 40)]) });
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByRole('alert')).toContainText('broken.gz is not a whole gzip file');
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('log');
  // Whether any text came out before the break is said: none from a bare header, some
  // from the first half of a longer archive.
  await replay.getByLabel('Open a log file').setInputFiles({ name: 'header.gz', mimeType: 'application/gzip', buffer: gzipSync(log).subarray(0, 10) });
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByRole('alert')).toContainText('nothing could be read from it');
  const longer = gzipSync(Buffer.concat(Array.from({ length: 200 }, () => log)));
  await replay.getByLabel('Open a log file').setInputFiles({ name: 'half.gz', mimeType: 'application/gzip', buffer: longer.subarray(0, Math.floor(longer.length / 2)) });
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByRole('alert')).toContainText(/half\.gz is not a whole gzip file .* of text before the break were not played either/);
  await expect(page.getByTestId('log-source')).toContainText('trace.txt.gz');

  // A 10 MB line (minified JavaScript, say) before a cut line and one good line.
  const good = log.toString('utf8').split('\n').find((line) => line.includes('sched_switch')) ?? '';
  const long = Buffer.concat([Buffer.alloc(10_000_000, 'x'), Buffer.from(`\n${good.slice(0, 60)}\n${good}\n`)]);
  await replay.getByLabel('Open a log file').setInputFiles({ name: 'long-line.txt', mimeType: 'text/plain', buffer: long });
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByTestId('replay-playing')).toContainText('long-line.txt');
  await expect(replay.getByTestId('replay-report')).toContainText('lines too long to read 1 (line 1)');
  await expect(replay.getByTestId('replay-events')).toHaveText('sched_switch 1');

  // Text without a scheduler event: said, with what its lines were; the log that
  // was playing stays, and so does what was typed.
  await replay.getByRole('button', { name: 'Use the box instead' }).click();
  const garbage = '\u0000\u0001 not a trace at all\n'.repeat(50);
  await box.fill(garbage);
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByRole('alert')).toContainText('pasted log: none of its 50 lines is a scheduler event');
  await expect(replay.getByRole('alert')).toContainText('50 lines that are not trace events (lines 1, 2, 3');
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('log');
  await expect(page.getByTestId('log-source')).toContainText('long-line.txt');
  await expect(box).toHaveValue(garbage);

  // Scheduler event lines whose fields cannot be read: the message says which field,
  // and where; not that they are no scheduler events.
  const unreadable =
    '  <idle>-0  [000] d..2.   100.000100: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=foo next_pid=abc next_prio=120\n' +
    'junk\n';
  await box.fill(unreadable);
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByRole('alert')).toContainText(
    'none of its 2 lines is a scheduler event that could be read, so there is nothing to replay. Line 1 is a scheduler event whose fields could not be read: sched_switch line skipped: next_pid=abc is not a number. The others: 1 line that is not a trace event (line 2).',
  );
  // Beside good lines, the unreadable one is a warning with its reason.
  await box.fill(`${good}\n${unreadable}`);
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await expect(replay.getByRole('list', { name: 'Warnings' })).toContainText('line 2: sched_switch line skipped: next_pid=abc is not a number');
});

test('a large log shows its progress and can be cancelled, and the scenario stays', async ({ page }) => {
  const dir = await mkdtemp(join(tmpdir(), 'schedlab-replay-'));
  try {
    // About 600 MB (two seconds of reading or more): switches and wakeups of 64 tasks on 8 CPUs.
    const lines: string[] = [];
    for (let i = 0; i < 4096; i += 1) {
      const cpu = i % 8;
      const pid = 1000 + (i % 64);
      const t = (100 + i * 0.00001).toFixed(6);
      lines.push(`          task-${pid}  [00${cpu}] d..2.  ${t}: sched_switch: prev_comm=task prev_pid=${pid} prev_prio=120 prev_state=S ==> next_comm=swapper/${cpu} next_pid=0 next_prio=120`);
      lines.push(`          <idle>-0     [00${cpu}] d..2.  ${t}: sched_wakeup: comm=task pid=${pid} prio=120 target_cpu=00${cpu}`);
    }
    const block = Buffer.from(lines.join('\n') + '\n');
    const path = join(dir, 'big-trace.txt');
    await writeFile(path, Buffer.concat(Array.from({ length: Math.ceil(600e6 / block.length) }, () => block)));

    await openApp(page);
    const replay = page.getByRole('region', { name: 'Replay' });
    await replay.getByLabel('Open a log file').setInputFiles(path);
    await expect(replay.getByTestId('replay-file')).toContainText(/big-trace\.txt \(6\d\d\.\d MB\)/);
    await replay.getByRole('button', { name: 'Replay', exact: true }).click();
    const progress = replay.getByRole('progressbar', { name: 'Reading the log' });
    await expect(progress).toBeVisible();
    await expect(replay.getByRole('status')).toContainText(/Reading big-trace\.txt: \d+ % \([\d.]+ [KMG]?B of 6\d\d\.\d MB\)/);
    await replay.getByRole('button', { name: 'Cancel' }).click();
    await expect(replay.getByRole('status')).toContainText('Cancelled reading big-trace.txt; the scenario that was loaded stays.');
    await waitIdle(page);
    await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('teaching-small');
    // The scenario still plays.
    const before = await eventCount(page);
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await waitIdle(page);
    expect(await eventCount(page)).toBe(before + 1);
    // A file opened after the cancel is read whole.
    const small = join(dir, 'small-trace.txt');
    await writeFile(small, block);
    await replay.getByLabel('Open a log file').setInputFiles(small);
    await replay.getByRole('button', { name: 'Replay', exact: true }).click();
    await expect(replay.getByTestId('replay-playing')).toContainText('small-trace.txt');
    await expect(replay.getByTestId('replay-events')).toHaveText('sched_switch 4,096, sched_wakeup 4,096');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
