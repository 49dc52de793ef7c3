import { describe, expect, it } from 'vitest';
import type { CgroupInfo } from '../engine/protocol';
import { buildCgroupTree, cgroupNow, cpuStatByName, defaultExpanded, formatQuota, leafGroups, revealed, ROOT, toggleExpanded, usageByName, visibleRows } from './cgroupTree';

/** A `cgroup_tree` as the bridge lists it: level by level, `width` children each, quotas on the leaves. */
function tree(depth: number, width: number): CgroupInfo[] {
  const groups: CgroupInfo[] = [];
  let level: { name: string; index: number | undefined }[] = [{ name: '', index: undefined }];
  for (let d = 1; d <= depth; d++) {
    const next: { name: string; index: number | undefined }[] = [];
    for (const parent of level) {
      for (let child = 0; child < width; child++) {
        const name = `${parent.name}/${child}`;
        groups.push({ name, parent: parent.index, depth: d, quotaUs: d === depth ? 2048 : undefined, periodUs: 10_000, cpuWeight: 100, tasks: d === depth ? 3 : 0 });
        next.push({ name, index: groups.length - 1 });
      }
    }
    level = next;
  }
  return groups;
}

describe('the cgroup tree', () => {
  it('hangs the groups under a root, with counts below each', () => {
    const built = buildCgroupTree(tree(3, 10));
    expect(built.nodes).toHaveLength(1_111);
    const root = built.nodes[ROOT];
    expect(root?.name).toBe('/');
    expect(root?.children).toHaveLength(10);
    expect(root?.descendants).toBe(1_110);
    expect(root?.leaves).toBe(1_000);
    const first = built.nodes[1];
    expect(first?.name).toBe('/0');
    expect(first?.descendants).toBe(110);
    expect(first?.leaves).toBe(100);
    expect(buildCgroupTree(tree(5, 4)).nodes).toHaveLength(1_365);
  });

  it('puts a group whose parent index is out of range under the root', () => {
    const built = buildCgroupTree([
      { name: '/a', parent: undefined, depth: 1, quotaUs: undefined, periodUs: 100_000, cpuWeight: 100, tasks: 0 },
      { name: '/b', parent: 7, depth: 2, quotaUs: undefined, periodUs: 100_000, cpuWeight: 100, tasks: 1 },
    ]);
    expect(built.nodes[ROOT]?.children).toEqual([1, 2]);
  });

  it('marks each group throttled from the frame, and counts throttled groups in every subtree', () => {
    const built = buildCgroupTree(tree(2, 3));
    // Groups: /0 /1 /2, then /0/0 /0/1 /0/2 /1/0 ... : [throttled cfs_rqs, runnable] per group.
    const frame = new Uint32Array(24);
    frame[2 * 3] = 2; // /0/0 throttled on 2 CPUs
    frame[2 * 3 + 1] = 3;
    frame[2 * 5] = 1; // /0/2
    frame[2 * 7 + 1] = 2; // /1/1 runnable, not throttled
    const now = cgroupNow(built, frame);
    expect(now.throttledCpus[4]).toBe(2);
    expect(now.runnable[4]).toBe(3);
    expect(now.throttledBelow[1]).toBe(2);
    expect(now.throttledBelow[2]).toBe(0);
    expect(now.throttledBelow[ROOT]).toBe(2);
    expect(now.throttled).toBe(2);
    expect(now.runnable[ROOT]).toBe(0);
  });

  it('counts nothing as throttled for a frame of another run', () => {
    const now = cgroupNow(buildCgroupTree(tree(2, 3)), new Uint32Array([1, 1, 1, 1]));
    expect(now.throttled).toBe(0);
  });

  it('shows inner groups as rows and leaves as strips in their parent row', () => {
    const built = buildCgroupTree(tree(2, 3));
    const all = visibleRows(built, new Set([ROOT, 1, 2, 3]));
    expect(all.map((row) => built.nodes[row.node]?.name)).toEqual(['/', '/0', '/1', '/2']);
    expect(all[1]?.leaves.map((id) => built.nodes[id]?.name)).toEqual(['/0/0', '/0/1', '/0/2']);
    const folded = visibleRows(built, new Set([ROOT]));
    expect(folded.map((row) => [row.level, row.expanded, row.leaves.length])).toEqual([
      [0, true, 0],
      [1, false, 0],
      [1, false, 0],
      [1, false, 0],
    ]);
    expect(visibleRows(built, new Set())).toHaveLength(1);
  });

  it('opens whole levels while the rows stay few: a 1,000-leaf tree at its first level, a small one to its leaves', () => {
    const large = buildCgroupTree(tree(3, 10));
    expect([...defaultExpanded(large)]).toEqual([ROOT]);
    expect(visibleRows(large, defaultExpanded(large))).toHaveLength(11);
    const deep = buildCgroupTree(tree(5, 4));
    const open = defaultExpanded(deep);
    expect(visibleRows(deep, open).length).toBeLessThanOrEqual(24);
    expect(open.size).toBe(5);
    const small = buildCgroupTree(tree(2, 3));
    expect(visibleRows(small, defaultExpanded(small)).every((row) => row.expanded)).toBe(true);
  });

  it('opens and closes a group, and opens the way to one selected', () => {
    const built = buildCgroupTree(tree(3, 2));
    const opened = toggleExpanded(new Set([ROOT]), 1);
    expect([...opened].sort()).toEqual([0, 1]);
    expect([...toggleExpanded(opened, 1)]).toEqual([ROOT]);
    const leaf = built.nodes.findIndex((node) => node.name === '/1/0/1');
    const path = revealed(built, new Set([ROOT]), leaf);
    expect([...path].map((id) => built.nodes[id]?.name).sort()).toEqual(['/', '/1', '/1/0']);
  });

  it('lists the leaves below a folded group parent by parent', () => {
    const built = buildCgroupTree(tree(3, 2));
    const groups = leafGroups(built, 1);
    expect(groups.map((group) => group.map((id) => built.nodes[id]?.name))).toEqual([
      ['/0/0/0', '/0/0/1'],
      ['/0/1/0', '/0/1/1'],
    ]);
    expect(leafGroups(built, ROOT).flat()).toHaveLength(8);
  });

  it('says a quota as cpu.max does, and finds cpu.stat by path', () => {
    expect(formatQuota({ quotaUs: 2048, periodUs: 10_000 })).toBe('2048 / 10000 us (20.5 % of a CPU)');
    expect(formatQuota({ quotaUs: 250_000, periodUs: 100_000 })).toBe('250000 / 100000 us (2.50 CPUs)');
    expect(formatQuota({ quotaUs: undefined, periodUs: 100_000 })).toBe('max (no limit)');
    expect(usageByName([{ group: '/0', usage_usec: 3000 }, { group: '/0/1', usage_usec: 1200 }]).get('/0/1')).toBe(1200);
    expect(usageByName(undefined).size).toBe(0);
    const stats = cpuStatByName([{ group: '/0/1', nr_periods: 29, nr_throttled: 4, throttled_usec: 1200 }]);
    expect(stats.get('/0/1')?.nr_throttled).toBe(4);
    expect(stats.get('/0/2')).toBeUndefined();
  });
});
