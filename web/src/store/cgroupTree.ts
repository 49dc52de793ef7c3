/**
 * The cgroup tree view's model: the hierarchy from the bridge's `cgroups_json`
 * under a root cgroup, each frame's throttled cfs_rqs and runnable tasks per group
 * (`frame_cgroups`) with counts over each subtree, which rows show for the groups
 * the user has expanded (the leaves of a parent summarised as one strip, so a tree
 * of a thousand leaves stays a few dozen rows), and each group's `cpu.stat` from
 * the run summary. Pure: no React, no engine.
 */
import type { BandwidthFigures, CgroupInfo, CpuStat } from '../engine/protocol';

/** A node of the tree: node 0 is the root cgroup, node `i + 1` the bridge's group `i`. */
export interface CgroupNode {
  readonly id: number;
  /** The bridge's index of the group; undefined for the root. */
  readonly group: number | undefined;
  readonly name: string;
  readonly depth: number;
  readonly parent: number | undefined;
  /** Child node ids, in the bridge's order. */
  readonly children: readonly number[];
  readonly quotaUs: number | undefined;
  readonly periodUs: number | undefined;
  /** `cpu.weight`; undefined for the root. */
  readonly cpuWeight: number | undefined;
  readonly tasks: number;
  /** Groups below this one (its subtree without itself). */
  readonly descendants: number;
  /** Leaf groups below this one. */
  readonly leaves: number;
}

export interface CgroupTree {
  readonly nodes: readonly CgroupNode[];
}

export const ROOT = 0;

/**
 * The tree of the bridge's groups, under a root (`/`). A group whose parent index
 * is missing or out of range hangs from the root, so nothing is lost.
 */
export function buildCgroupTree(groups: readonly CgroupInfo[]): CgroupTree {
  const children: number[][] = Array.from({ length: groups.length + 1 }, () => []);
  const parents = groups.map((group) => (group.parent !== undefined && group.parent >= 0 && group.parent < groups.length ? group.parent + 1 : ROOT));
  parents.forEach((parent, index) => children[parent]?.push(index + 1));
  const descendants = new Array<number>(groups.length + 1).fill(0);
  const leaves = new Array<number>(groups.length + 1).fill(0);
  // Children come after their parents in the bridge's list; a later index may still
  // be a parent, so sum over a depth-first order.
  const order: number[] = [];
  const stack = [ROOT];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const id = stack.pop() as number;
    if (seen.has(id)) continue;
    seen.add(id);
    order.push(id);
    for (const child of children[id] ?? []) stack.push(child);
  }
  for (const id of order.reverse()) {
    for (const child of children[id] ?? []) {
      descendants[id] = (descendants[id] ?? 0) + 1 + (descendants[child] ?? 0);
      leaves[id] = (leaves[id] ?? 0) + ((children[child]?.length ?? 0) === 0 ? 1 : (leaves[child] ?? 0));
    }
  }
  const nodes: CgroupNode[] = [
    { id: ROOT, group: undefined, name: '/', depth: 0, parent: undefined, children: children[ROOT] ?? [], quotaUs: undefined, periodUs: undefined, cpuWeight: undefined, tasks: 0, descendants: descendants[ROOT] ?? 0, leaves: leaves[ROOT] ?? 0 },
  ];
  groups.forEach((group, index) => {
    const id = index + 1;
    nodes.push({
      id,
      group: index,
      name: group.name,
      depth: group.depth,
      parent: parents[index],
      children: children[id] ?? [],
      quotaUs: group.quotaUs,
      periodUs: group.periodUs,
      cpuWeight: group.cpuWeight,
      tasks: group.tasks,
      descendants: descendants[id] ?? 0,
      leaves: leaves[id] ?? 0,
    });
  });
  return { nodes };
}

export function isLeaf(node: CgroupNode): boolean {
  return node.children.length === 0;
}

/** Each node's state now, from a frame's `[throttled, runnable, ...]` per group. */
export interface CgroupNow {
  /** Per node: its own cfs_rqs throttled now (the CPUs it waits on). */
  readonly throttledCpus: Uint32Array;
  /** Per node: runnable tasks in the group itself, over all CPUs (the root's: its children's sum). */
  readonly runnable: Uint32Array;
  /** Per node: groups throttled in its subtree, itself included. */
  readonly throttledBelow: Uint32Array;
  /** Groups throttled in the whole tree. */
  readonly throttled: number;
}

/**
 * The tree's state from a frame's cgroup array. An array of the wrong length (a
 * frame of another run) counts nothing as throttled rather than misplacing marks.
 */
export function cgroupNow(tree: CgroupTree, frame: Uint32Array): CgroupNow {
  const count = tree.nodes.length;
  const throttledCpus = new Uint32Array(count);
  const runnable = new Uint32Array(count);
  const throttledBelow = new Uint32Array(count);
  if (frame.length === (count - 1) * 2) {
    for (let index = 0; index < count - 1; index++) {
      throttledCpus[index + 1] = frame[2 * index] ?? 0;
      runnable[index + 1] = frame[2 * index + 1] ?? 0;
    }
  }
  // Children have larger ids than the root but not always than their parents: walk the
  // tree from the leaves up with an explicit post-order.
  const post: number[] = [];
  const stack: [number, boolean][] = [[ROOT, false]];
  while (stack.length > 0) {
    const [id, expanded] = stack.pop() as [number, boolean];
    if (expanded) {
      post.push(id);
      continue;
    }
    stack.push([id, true]);
    for (const child of tree.nodes[id]?.children ?? []) stack.push([child, false]);
  }
  for (const id of post) {
    let below = (throttledCpus[id] ?? 0) > 0 ? 1 : 0;
    for (const child of tree.nodes[id]?.children ?? []) below += throttledBelow[child] ?? 0;
    throttledBelow[id] = below;
  }
  let rootRunnable = 0;
  for (const child of tree.nodes[ROOT]?.children ?? []) rootRunnable += runnable[child] ?? 0;
  runnable[ROOT] = rootRunnable;
  return { throttledCpus, runnable, throttledBelow, throttled: throttledBelow[ROOT] ?? 0 };
}

/** A row of the indented tree: an inner group (or the root), with its leaf children as one strip when expanded. */
export interface CgroupRow {
  readonly node: number;
  /** Rows above it in its line of ancestors (its indent). */
  readonly level: number;
  readonly expanded: boolean;
  /** Expanded: the leaf children, drawn as a strip of marks in this row. */
  readonly leaves: readonly number[];
}

/** The rows shown: every inner group whose ancestors are all expanded; leaves only as strips of their parents. */
export function visibleRows(tree: CgroupTree, expanded: ReadonlySet<number>): readonly CgroupRow[] {
  const rows: CgroupRow[] = [];
  const visit = (id: number, level: number) => {
    const node = tree.nodes[id];
    if (!node) return;
    const open = expanded.has(id);
    const children = node.children.map((child) => tree.nodes[child]).filter((child): child is CgroupNode => child !== undefined);
    rows.push({ node: id, level, expanded: open, leaves: open ? children.filter(isLeaf).map((child) => child.id) : [] });
    if (!open) return;
    for (const child of children) if (!isLeaf(child)) visit(child.id, level + 1);
  };
  visit(ROOT, 0);
  return rows;
}

/**
 * What opens first: the root, then whole levels of the tree while the rows stay
 * within `maxRows` (a level is opened for all its groups or for none, so the view
 * stays regular): a 1,000-leaf tree opens at its first level, a small one to its leaves.
 */
export function defaultExpanded(tree: CgroupTree, maxRows = 24): ReadonlySet<number> {
  const expanded = new Set<number>([ROOT]);
  for (let depth = 1; ; depth++) {
    const level = tree.nodes.filter((node) => node.depth === depth && !isLeaf(node));
    if (level.length === 0) break;
    const next = new Set([...expanded, ...level.map((node) => node.id)]);
    if (visibleRows(tree, next).length > maxRows) break;
    for (const node of level) expanded.add(node.id);
  }
  return expanded;
}

/** The set with `id` opened or closed. */
export function toggleExpanded(expanded: ReadonlySet<number>, id: number): ReadonlySet<number> {
  const next = new Set(expanded);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

/** Every ancestor of `id` opened, so that it shows (as a row, or in its parent's strip). */
export function revealed(tree: CgroupTree, expanded: ReadonlySet<number>, id: number): ReadonlySet<number> {
  const next = new Set(expanded);
  for (let at = tree.nodes[id]?.parent; at !== undefined; at = tree.nodes[at]?.parent) next.add(at);
  return next;
}

/**
 * The leaves below a group, in tree order, one list per parent: a folded group's
 * row shows them all as small marks, parent by parent.
 */
export function leafGroups(tree: CgroupTree, id: number): readonly (readonly number[])[] {
  const groups: number[][] = [];
  const visit = (at: number) => {
    const node = tree.nodes[at];
    if (!node) return;
    const leaves = node.children.filter((child) => tree.nodes[child] !== undefined && isLeaf(tree.nodes[child] as CgroupNode));
    if (leaves.length > 0) groups.push(leaves);
    for (const child of node.children) if (!leaves.includes(child)) visit(child);
  };
  visit(id);
  return groups;
}

/** Each group's `cpu.stat` by its path. */
export function cpuStatByName(stats: readonly CpuStat[] | undefined): ReadonlyMap<string, CpuStat> {
  return new Map((stats ?? []).map((stat) => [stat.group, stat]));
}

/** Each group's `usage_usec` by its path. */
export function usageByName(usage: BandwidthFigures['usage']): ReadonlyMap<string, number> {
  return new Map((usage ?? []).map((row) => [row.group, row.usage_usec]));
}

/** A quota as `cpu.max` reads: `2048 / 10000 us (20.5 % of a CPU)`, or `max` without one. */
export function formatQuota(node: Pick<CgroupNode, 'quotaUs' | 'periodUs'>): string {
  if (node.quotaUs === undefined || node.periodUs === undefined || node.periodUs === 0) return 'max (no limit)';
  const share = (node.quotaUs / node.periodUs) * 100;
  return `${node.quotaUs} / ${node.periodUs} us (${share >= 100 ? (share / 100).toFixed(2) + ' CPUs' : share.toFixed(1) + ' % of a CPU'})`;
}
