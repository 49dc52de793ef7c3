import { expect, test } from '@playwright/test';
import { chooseScenario, exportFile, openApp, waitIdle } from './helpers';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** One event line of the kernel's `trace` file, as `schedlab run --trace-out` writes it. */
const EVENT_LINE = /^ {0,16}\S.*-\d+ +\[\d{3}\] [.a-zA-Z0-9]{5} +\d+\.\d{6}: [a-z_]+: /;
const SWITCH_LINE =
  /^ {0,16}\S.*-\d+ +\[\d{3}\] [.a-zA-Z0-9]{5} +\d+\.\d{6}: sched_switch: prev_comm=\S+ prev_pid=\d+ prev_prio=\d+ prev_state=\S+ ==> next_comm=\S+ next_pid=\d+ next_prio=\d+$/;

test.beforeEach(async ({ page }) => {
  await openApp(page);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('1/10×');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(() => page.evaluate(() => window.__schedlab?.events ?? 0)).toBeGreaterThan(1500);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
});

test('the trace exports as ftrace text, with and without the reasons', async ({ page }) => {
  const plain = await exportFile(page, 'Trace (ftrace text: Perfetto, trace-cmd, replay)');
  expect(plain.name).toBe('schedlab-teaching-small-seed42-trace.txt');
  const lines = plain.bytes.toString('utf8').trimEnd().split('\n');
  expect(lines[0]).toBe('# tracer: nop');
  const events = lines.filter((line) => !line.startsWith('#'));
  expect(events.length).toBeGreaterThan(500);
  for (const line of events) expect(line).toMatch(EVENT_LINE);
  const switches = events.filter((line) => line.includes(' sched_switch: '));
  expect(switches.length).toBeGreaterThan(100);
  for (const line of switches) expect(line).toMatch(SWITCH_LINE);
  // Without reasons: nothing after the event's own fields (what Perfetto opens).
  expect(events.some((line) => line.includes('  # '))).toBe(false);

  const annotated = await exportFile(page, 'Trace (ftrace, with reasons)');
  expect(annotated.name).toBe('schedlab-teaching-small-seed42-trace-reasons.txt');
  const withReasons = annotated.bytes
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .filter((line) => !line.startsWith('#'));
  // The same records, each decision with its reason appended.
  expect(withReasons).toHaveLength(events.length);
  expect(withReasons.map((line) => line.replace(/ {2}# .*$/, ''))).toEqual(events);
  expect(withReasons.find((line) => line.includes('sched_wakeup_new:'))).toMatch(/ {2}# find_idlest_cpu: /);
});

test('the metrics export as JSON and as CSV with the same figures', async ({ page }) => {
  const json = await exportFile(page, 'Metrics (JSON)');
  expect(json.name).toBe('schedlab-teaching-small-seed42-metrics.json');
  const summary = JSON.parse(json.bytes.toString('utf8')) as { scenario: string; seed: number; trace_hash: string; wakeup_latency_us: { p99: number } };
  expect(summary.scenario).toBe('teaching-small');
  expect(summary.seed).toBe(42);
  expect(summary.trace_hash).toMatch(/^[0-9a-f]{16}$/);
  expect(summary.wakeup_latency_us.p99).toBeGreaterThan(0);

  const csv = await exportFile(page, 'Metrics (CSV)');
  expect(csv.name).toBe('schedlab-teaching-small-seed42-metrics.csv');
  const rows = csv.bytes.toString('utf8').trimEnd().split('\n');
  expect(rows[0]).toBe('key,value');
  expect(rows).toContain(`wakeup_latency_us.p99,${summary.wakeup_latency_us.p99}`);
  expect(rows).toContain('seed,42');
  for (const row of rows.slice(1)) expect(row).toMatch(/^[^,]+,-?\d+(\.\d+)?(e[-+]?\d+)?$/);
});

test('the timeline exports as PNG and the machine as SVG and PNG', async ({ page }) => {
  const timeline = await exportFile(page, 'Timeline (PNG)');
  expect(timeline.name).toBe('schedlab-teaching-small-seed42-timeline.png');
  const canvas = await page.getByTestId('timeline-canvas').evaluate((element) => ({ width: (element as HTMLCanvasElement).width, height: (element as HTMLCanvasElement).height }));
  expect(pngSize(timeline.bytes)).toEqual(canvas);

  const svg = await exportFile(page, 'Machine (SVG)');
  expect(svg.name).toBe('schedlab-teaching-small-seed42-machine.svg');
  const text = svg.bytes.toString('utf8');
  expect(text.startsWith('<?xml')).toBe(true);
  // Parsed as a standalone document: well formed, with a box per CPU, styled without the page's CSS.
  const parsed = await page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    const cells = [...doc.querySelectorAll('g.cpu rect.cpu-cell')];
    return {
      errors: doc.getElementsByTagName('parsererror').length,
      root: doc.documentElement.localName,
      namespace: doc.documentElement.namespaceURI,
      cpus: doc.querySelectorAll('g.cpu').length,
      filled: cells.filter((cell) => /fill: rgb/.test(cell.getAttribute('style') ?? '')).length,
      labels: [...doc.querySelectorAll('g.cpu-text text.cpu-label')].map((label) => label.textContent),
      // The numbers' halo is painted under their fill, as on the page.
      haloed: [...doc.querySelectorAll('g.cpu-text text.cpu-label')].filter((label) => /paint-order: stroke/.test(label.getAttribute('style') ?? '')).length,
    };
  }, text);
  expect(parsed).toMatchObject({ errors: 0, root: 'svg', namespace: 'http://www.w3.org/2000/svg', cpus: 8, filled: 8 });
  expect(parsed.labels).toHaveLength(8);
  expect(parsed.haloed).toBe(8);

  const png = await exportFile(page, 'Machine (PNG)');
  expect(png.name).toBe('schedlab-teaching-small-seed42-machine.png');
  const size = pngSize(png.bytes);
  const box = await page.locator('svg[data-testid="machine"]').evaluate((element) => {
    const { width, height } = (element as SVGSVGElement).viewBox.baseVal;
    return { width, height };
  });
  expect(size.width).toBeGreaterThanOrEqual(Math.round(box.width * 2));
  expect(size.height).toBeGreaterThanOrEqual(Math.round(box.height * 2));
});

test('the Export menu works from the keyboard and closes with Escape', async ({ page }) => {
  const button = page.getByRole('button', { name: 'Export', exact: true });
  await button.click();
  const menu = page.getByRole('menu', { name: 'Export' });
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Trace (ftrace, with reasons)' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(button).toBeFocused();
  // Nothing started playing on the way.
  await waitIdle(page);
});

test('the trace exports as Perfetto / Chrome JSON: a track per CPU, a slice per run, the reasons on instants', async ({ page }) => {
  const file = await exportFile(page, 'Trace (Chrome JSON: Perfetto, chrome://tracing)');
  expect(file.name).toBe('schedlab-teaching-small-seed42-trace.json');
  const document = JSON.parse(file.bytes.toString('utf8')) as {
    displayTimeUnit: string;
    traceEvents: { ph: string; tid?: number; name: string; ts?: number; dur?: number; args?: Record<string, unknown> }[];
  };
  expect(document.displayTimeUnit).toBe('ns');
  const events = document.traceEvents;
  const threads = events.filter((event) => event.ph === 'M' && event.name === 'thread_name').map((event) => event.args?.name);
  expect(threads).toEqual(['CPU 0', 'CPU 1', 'CPU 2', 'CPU 3', 'CPU 4', 'CPU 5', 'CPU 6', 'CPU 7']);
  const slices = events.filter((event) => event.ph === 'X');
  expect(slices.length).toBeGreaterThan(100);
  for (const slice of slices) {
    expect(slice.tid).toBeGreaterThanOrEqual(0);
    expect(slice.dur).toBeGreaterThanOrEqual(0);
    expect(slice.name).toMatch(/^\S+ \d+$/);
  }
  // Slices on one CPU never overlap.
  const cpu0 = slices.filter((slice) => slice.tid === 0).sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0));
  for (let index = 1; index < cpu0.length; index += 1) {
    expect(cpu0[index]!.ts!).toBeGreaterThanOrEqual(cpu0[index - 1]!.ts! + cpu0[index - 1]!.dur! - 1e-6);
  }
  const wakeups = events.filter((event) => event.ph === 'i' && event.name.startsWith('sched_wakeup'));
  expect(wakeups.length).toBeGreaterThan(50);
  expect(wakeups.some((event) => typeof event.args?.reason === 'string' && (event.args.reason as string).length > 0)).toBe(true);
});

test('the timeline exports as SVG: every lane, the runs on screen, the axis', async ({ page }) => {
  const file = await exportFile(page, 'Timeline (SVG)');
  expect(file.name).toBe('schedlab-teaching-small-seed42-timeline.svg');
  const text = file.bytes.toString('utf8');
  const parsed = await page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    return {
      errors: doc.getElementsByTagName('parsererror').length,
      root: doc.documentElement.localName,
      rects: doc.querySelectorAll('rect').length,
      labels: [...doc.querySelectorAll('text')].map((label) => label.textContent ?? ''),
    };
  }, text);
  expect(parsed.errors).toBe(0);
  expect(parsed.root).toBe('svg');
  for (let cpu = 0; cpu < 8; cpu += 1) expect(parsed.labels).toContain(`CPU ${cpu}`);
  expect(parsed.labels.some((label) => / ms$/.test(label))).toBe(true);
  // As many runs as the canvas painted, at least.
  const spans = await page.evaluate(() => window.__schedlab?.timeline.spans ?? 0);
  expect(parsed.rects).toBeGreaterThanOrEqual(spans);
});

test('with the power model, the Frequency chart exports as SVG and PNG', async ({ page }) => {
  await chooseScenario(page, 'turbo-bench-power9-pack');
  await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  const svg = await exportFile(page, 'Frequency chart (SVG)');
  expect(svg.name).toMatch(/^schedlab-turbo-bench-power9-pack-seed\d+-frequency\.svg$/);
  const text = svg.bytes.toString('utf8');
  expect(text).toContain('class="freq-line"');
  expect(text).toMatch(/nominal \d\.\d\d GHz/);
  const png = await exportFile(page, 'Frequency chart (PNG)');
  expect(pngSize(png.bytes).width).toBeGreaterThan(300);
  // Without the power model there is no chart to export.
  await chooseScenario(page, 'teaching-small');
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  await expect(page.getByRole('menu', { name: 'Export' }).getByRole('menuitem', { name: 'Frequency chart (SVG)' })).toHaveCount(0);
});
