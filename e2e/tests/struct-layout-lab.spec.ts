import { readFileSync } from 'node:fs';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

/** A small cgroup tree on the teaching machine: 3 groups of 3 leaves, each leaf a schbench under a quota (also `scripts/rerun-bench.mjs`'s). */
const SCENARIO = readFileSync(new URL('../fixtures/cgroup-tree-small.json', import.meta.url), 'utf8');

/** A number as the tables write it (`12,345`). */
async function count(cell: Locator): Promise<number> {
  return Number(((await cell.textContent()) ?? '').replace(/,/g, ''));
}

/** The fields of a drawing in layout order. */
async function fieldOrder(drawing: Locator): Promise<string[]> {
  const names = await drawing.locator('g.field').evaluateAll((boxes) => boxes.map((box) => box.getAttribute('data-field') ?? ''));
  return names.filter((name, index) => names.indexOf(name) === index);
}

/** Drags one field's box onto the left half of another's with the mouse. */
async function dragField(page: Page, drawing: Locator, field: string, onto: string): Promise<void> {
  await drawing.scrollIntoViewIfNeeded();
  const from = await drawing.locator(`g.field[data-field="${field}"] rect`).first().boundingBox();
  const to = await drawing.locator(`g.field[data-field="${onto}"] rect`).first().boundingBox();
  if (!from || !to) throw new Error('field boxes not drawn');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 4, to.y + to.height / 2, { steps: 8 });
  await expect(drawing.getByTestId('drop-marker')).toBeVisible();
  await page.mouse.up();
}

test('the struct layout lab and the cgroup tree: throttled groups, layouts compared, a field dragged and moved by key, a bad order refused', async ({ page }) => {
  // Six re-runs of a cgroup tree from the same seed: longer than the default minute
  // when the suite's other worker is busy too.
  test.setTimeout(150_000);
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  await editor.fill(SCENARIO);
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  const lab = page.getByRole('region', { name: 'Struct layout lab' });
  const tree = page.getByRole('region', { name: 'Cgroup tree' });
  const policy = page.getByRole('region', { name: 'Policy' });

  // The tree: the root, 3 groups and their 9 leaves, all shown (a small tree opens to its leaves).
  await expect(tree.getByTestId('cgroups-count')).toContainText('13 groups with the root, 9 leaves');
  const leaves = tree.locator('button.cg-leaf');
  await expect(leaves).toHaveCount(9);
  await expect(tree.locator('button.cg-leaf.throttled')).toHaveCount(0);

  // 12 ms in (a tenth of the run, then 40 steps of 50 us): three leaves wait for quota,
  // throttled from 11.57 to 11.58 ms (the native trace's schedlab_cfs_throttle lines).
  const slider = page.getByRole('slider', { name: 'Playhead' });
  await slider.focus();
  await page.keyboard.press('PageUp');
  await waitIdle(page);
  for (let step = 0; step < 40; step++) {
    await page.keyboard.press('ArrowRight');
    await waitIdle(page);
  }
  await expect(page.getByTestId('sim-time')).toContainText('t = 0.012000 s');
  const throttled = tree.locator('button.cg-leaf.throttled');
  await expect(throttled).toHaveCount(3);
  expect(await throttled.evaluateAll((marks) => marks.map((mark) => mark.getAttribute('data-group')))).toEqual(['/0/1', '/0/2', '/1/0']);
  await expect(tree.getByTestId('cgroups-count')).toContainText('3 throttled');
  // A throttled leaf: its quota, its state now, and cpu.stat saying it has been throttled.
  await throttled.first().click();
  const detail = tree.getByTestId('cgroup-detail');
  await expect(detail.getByTestId('cgroup-now')).toContainText(/^throttled on \d+ CPUs?/);
  await expect(detail).toContainText('4444 / 10000 us');
  await expect(detail.getByTestId('cgroup-weight')).toHaveText('100');
  await expect.poll(async () => count(detail.getByTestId('cpu-stat').locator('dd').nth(1))).toBeGreaterThan(0);
  // usage_usec: the CPU time the group's subtree was charged so far.
  await expect.poll(async () => count(detail.getByTestId('cpu-usage').locator('dd'))).toBeGreaterThan(0);
  // What throttled_usec adds up, as the kernel does: each CPU's cfs_rq's time.
  await expect(detail.getByTestId('throttled-usec-note')).toContainText('cfs_b->throttled_time');
  // Folding a group keeps its leaves as small marks, throttled ones marked.
  await tree.getByRole('button', { name: 'Fold /0' }).click();
  await expect(tree.locator('li[data-group="/0"] [data-testid="cg-minimap"] .cg-mini')).toHaveCount(3);
  await expect(tree.locator('li[data-group="/0"] [data-testid="cg-minimap"] .cg-mini.throttled')).toHaveCount(2);

  // The lab: the original layout in both drawings, heat from the run so far.
  await expect(lab.getByRole('radio', { name: 'Original' })).toBeChecked();
  const currentRq = lab.getByTestId('struct-current-cfs_rq');
  const originalRq = lab.getByTestId('struct-original-cfs_rq');
  await expect(currentRq).toHaveAttribute('data-lines', '8');
  await expect(originalRq).toHaveAttribute('data-lines', '8');
  await expect(lab.getByTestId('heat-legend').getByRole('img')).toBeVisible();
  const holes = await originalRq.locator('rect.hole').count();
  expect(holes).toBeGreaterThan(0);

  // At the end of the run the original layout played here and the one run beside it agree.
  await lab.getByRole('button', { name: 'Run to the end' }).click();
  await waitIdle(page);
  await expect(page.getByTestId('sim-time')).toContainText('t = 0.100000 s');
  const total = lab.locator('tfoot tr[data-row="total"]');
  await expect(total.locator('[data-column="change"]')).toHaveText('0.0 %');
  const originalTotal = await count(total.locator('[data-column="original"]'));
  expect(originalTotal).toBeGreaterThan(0);
  expect(await count(total.locator('[data-column="current"]'))).toBe(originalTotal);

  // Reordered: the run is redone to the same time; cfs_rq takes 7 lines, and the
  // change column says how far the misses moved (on so small a tree, either way).
  await lab.getByRole('radio', { name: 'Reordered' }).check();
  await waitIdle(page);
  await expect(lab.getByRole('radio', { name: 'Reordered' })).toBeChecked();
  await expect(page.getByTestId('sim-time')).toContainText('t = 0.100000 s');
  await expect(currentRq).toHaveAttribute('data-lines', '7');
  await expect(originalRq).toHaveAttribute('data-lines', '8');
  await expect(total.locator('[data-column="change"]')).toHaveText(/^[−+]\d+\.\d %$/);
  const reorderedTotal = await count(total.locator('[data-column="current"]'));
  expect(reorderedTotal).not.toBe(originalTotal);
  const change = (((reorderedTotal - originalTotal) / originalTotal) * 100).toFixed(1);
  await expect(total.locator('[data-column="change"]')).toHaveText(`${reorderedTotal < originalTotal ? '−' : '+'}${change.replace('-', '')} %`);
  expect(await count(total.locator('[data-column="original"]'))).toBe(originalTotal);
  await expect(policy.getByTestId('policy-diff')).toContainText('struct_layout "reordered" (file: "original")');
  await expect(policy.getByRole('combobox', { name: 'struct_layout' })).toHaveValue('reordered');

  // An operation marks the lines it touches in both drawings and dims the fields it does not.
  await lab.getByRole('button', { name: /^enqueue_entity/ }).click();
  const touchedNow = await currentRq.locator('g.struct-line.touched').count();
  await expect(currentRq.getByTestId('struct-current-cfs_rq-touched')).toHaveText(` · the operation touches ${touchedNow} of 7`);
  expect(await originalRq.locator('g.struct-line.touched').count()).toBeGreaterThan(0);
  expect(await currentRq.locator('g.field.dim').count()).toBeGreaterThan(0);
  await expect(lab.locator('tbody tr.highlighted')).toHaveAttribute('data-operation', 'enqueue_entity');
  // An operation with calls and no misses of its own is explained under the table, and only then.
  const silent = await lab.locator('tbody tr').evaluateAll((rows) =>
    rows.filter((row) => {
      const calls = Number(row.querySelector('[data-column="calls"]')?.textContent?.replace(/,/g, '') || 0);
      return calls > 0 && row.querySelector('[data-column="current"]')?.textContent === '0';
    }).length,
  );
  await expect(lab.getByTestId('misses-attribution')).toHaveCount(silent > 0 ? 1 : 0);

  // The table sorts by name.
  await lab.getByRole('columnheader', { name: 'operation' }).getByRole('button').click();
  const operations = await lab.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-operation') ?? ''));
  expect(operations).toEqual([...operations].sort());

  // Custom: drag `tg` to the front of cfs_rq; the run is redone with that order.
  await lab.getByRole('radio', { name: 'Custom' }).check();
  await expect(lab.getByRole('radio', { name: 'Custom' })).toBeChecked();
  const before = await fieldOrder(currentRq);
  expect(before[0]).toBe('load');
  await dragField(page, currentRq, 'tg', 'load');
  await expect(policy.getByTestId('policy-diff')).toContainText('struct_layout {"sched_entity": [23 names], "cfs_rq": [37 names]}');
  await waitIdle(page);
  const dragged = await fieldOrder(currentRq);
  expect(dragged).toEqual(['tg', ...before.filter((name) => name !== 'tg')]);
  await expect(page.getByTestId('sim-time')).toContainText('t = 0.100000 s');
  await expect(lab.getByRole('columnheader', { name: 'custom, this run' })).toBeVisible();
  await expect(policy.getByRole('combobox', { name: 'struct_layout' })).toHaveValue('(explicit)');

  // The keyboard way: select `curr`, then Move later.
  await currentRq.locator('g.field[data-field="curr"]').first().focus();
  await page.keyboard.press('Enter');
  await expect(lab.getByTestId('field-detail')).toContainText('cfs_rq.curr');
  await lab.getByRole('button', { name: 'Move later' }).click();
  await waitIdle(page);
  const moved = await fieldOrder(currentRq);
  expect(moved.indexOf('curr')).toBe(dragged.indexOf('curr') + 1);
  const orderField = lab.getByLabel(/cfs_rq order/);
  await expect(orderField).toHaveValue(moved.join(', '));
  // Alt+arrow on the field moves it back, and the focus stays on it through the re-run.
  await currentRq.locator('g.field[data-field="curr"]').first().focus();
  await page.keyboard.press('Alt+ArrowLeft');
  await waitIdle(page);
  expect(await fieldOrder(currentRq)).toEqual(dragged);
  await expect(orderField).toHaveValue(dragged.join(', '));
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-field'))).toBe('curr');

  // A typed order without `tg`: the core's reason is shown, the typing kept, the run left as it was.
  const typed = dragged.filter((name) => name !== 'tg').join(', ');
  await orderField.fill(typed);
  await lab.getByRole('button', { name: 'Apply cfs_rq order' }).click();
  await waitIdle(page);
  const problem = lab.getByTestId('layout-problem');
  await expect(problem).toContainText('This order is not a layout: cfs_rq: field `tg` is missing.');
  await expect(orderField).toHaveValue(typed);
  expect(await fieldOrder(currentRq)).toEqual(dragged);
  await expect(policy.getByTestId('policy-problems')).toHaveCount(0);
});
