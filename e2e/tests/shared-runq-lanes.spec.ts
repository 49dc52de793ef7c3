import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('SHARED_RUNQ plays: shard lanes hold queued tasks and lock_stat shows &shard->lock with its call sites', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'shared-runq-schbench-pipe-skylake');
  const machine = page.locator('svg[data-testid="machine"]');
  // 36 CPUs in one LLC with shards of 6 CPUs: six lanes.
  const lanes = machine.locator('g.lane');
  await expect(lanes).toHaveCount(6);
  await expect(lanes.first().locator('text.lane-label')).toHaveText('shard 0');
  await expect(page.getByTestId('shard-legend')).toContainText('head (oldest) first');

  await page.getByRole('button', { name: 'Play', exact: true }).click();
  const queued = machine.locator('g.lane g.chip');
  await expect.poll(() => queued.count()).toBeGreaterThan(2);
  const lockStat = page.getByRole('region', { name: 'Lock stat' });
  const shardRow = lockStat.locator('tr.lock-class[data-class="&shard->lock"]');
  const acquisitions = shardRow.locator('[data-column="acquisitions"]');
  await expect.poll(async () => Number((await acquisitions.textContent())?.replaceAll(',', ''))).toBeGreaterThan(100);
  // Call sites are listed once the lock has been contended.
  await expect.poll(async () => Number((await shardRow.locator('[data-column="contentions"]').textContent())?.replaceAll(',', ''))).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);

  // A contended lock's waiters: each CPU that spun on a shard's lock lately has a dot,
  // is one of its LLC's CPUs, and is named at its shard's lane.
  await expect(page.getByTestId('spin-legend')).toContainText('spun on a shard');
  const spins = await machine.locator('circle.lock-wait').evaluateAll((dots) => dots.map((dot) => [Number(dot.getAttribute('data-shard')), Number(dot.getAttribute('data-cpu'))] as const));
  expect(spins.length).toBeGreaterThan(0);
  for (const [shard, cpu] of spins) {
    expect(cpu).toBeLessThan(36);
    const lane = lanes.nth(shard);
    await expect(lane.locator('text.lane-spin')).toHaveText(/^spun: (CPUs? \d+(, \d+)*( \+\d+)?|\d+)$/);
    // In room of its own: no queued task under it.
    const patch = await lane.locator('rect.lane-spin-bg').boundingBox();
    const chipRights = await lane.locator('g.chip rect:not(.jitter-mark)').evaluateAll((rects) => rects.map((rect) => rect.getBoundingClientRect().right));
    for (const right of chipRights) expect(right).toBeLessThanOrEqual((patch?.x ?? 0) + 0.5);
    // The lane's tooltip names every one of them.
    const named = /; CPUs? ([\d, and]+) spun on it just now/.exec((await lane.locator('title').textContent()) ?? '')?.[1] ?? '';
    expect(named.split(/, | and /).map(Number)).toContain(cpu);
  }

  // Every chip is a task of the run, and a lane's length is what its chips and "+N more" add up to.
  const chipPids = await queued.evaluateAll((chips) => chips.map((chip) => Number(chip.getAttribute('data-pid'))));
  expect(chipPids.every((chipPid) => chipPid >= 1000)).toBe(true);
  for (const lane of await lanes.all()) {
    const length = Number(await lane.getAttribute('data-length'));
    const chips = await lane.locator('g.chip').count();
    const more = Number(/^\+(\d+) more$/.exec((await lane.locator('text.lane-more').textContent()) ?? '')?.[1] ?? 0);
    expect(chips + more).toBe(length);
  }

  // The kernel's columns, and the shard lock's call sites under its row.
  await expect(shardRow.locator('th')).toHaveText('&shard->lock:');
  expect(Number((await acquisitions.textContent())?.replaceAll(',', ''))).toBeGreaterThan(0);
  await expect(shardRow.locator('[data-column="waittime-total"]')).toHaveText(/^[\d,]+\.\d\d$/);
  const sites = lockStat.locator('tbody[data-class="&shard->lock"] tr.lock-site');
  expect(await sites.count()).toBeGreaterThan(0);
  const siteNames = await sites.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-site')));
  expect(siteNames).toContain('__enqueue_entity');
  await expect(lockStat.locator('tbody[data-class="&shard->lock"]')).toContainText('contention points');
  await expect(lockStat.locator('tr.lock-class[data-class="&rq->__lock"]')).toHaveCount(1);

  // Sorting: by acquisitions, most first, then the other way round.
  const header = lockStat.getByRole('columnheader', { name: 'acquisitions' });
  await header.getByRole('button').click();
  await expect(header).toHaveAttribute('aria-sort', 'descending');
  const order = async () =>
    lockStat.locator('tr.lock-class').evaluateAll((rows) =>
      rows.map((row) => Number(row.querySelector('[data-column="acquisitions"]')?.textContent)),
    );
  const descending = await order();
  expect(descending).toEqual([...descending].sort((a, b) => b - a));
  await header.getByRole('button').click();
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  const ascending = await order();
  expect(ascending).toEqual([...descending].sort((a, b) => a - b));
});
