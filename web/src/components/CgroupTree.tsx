import { Fragment, memo, useMemo, useState, useSyncExternalStore, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { AppStore } from '../store/app';
import type { CgroupInfo, CpuStat } from '../engine/protocol';
import {
  buildCgroupTree,
  cgroupNow,
  cpuStatByName,
  usageByName,
  defaultExpanded,
  formatQuota,
  isLeaf,
  leafGroups,
  revealed,
  ROOT,
  toggleExpanded,
  visibleRows,
  type CgroupNode,
  type CgroupNow,
  type CgroupTree as Tree,
} from '../store/cgroupTree';
import type { RunFigures } from '../store/runFigures';
import { formatCount, formatTraceTime } from '../base/format';
import { simTimeNs } from '../base/types';
import { useAppState, useAppStateEvery } from './useStore';

const NO_GROUPS: readonly CgroupInfo[] = [];
const NO_LEAF_GROUPS: readonly (readonly number[])[] = [];
const NO_FRAME = new Uint32Array(0);

/**
 * The cgroup hierarchy (region "Cgroup tree"): an indented tree, each inner group a
 * row that opens and closes, the leaves of a group a strip of marks in its row, so
 * a thousand leaves stay a few dozen rows. Each group is marked while any of its
 * cfs_rqs is throttled, as the run plays (the frame's `frame_cgroups`); a group
 * clicked shows its quota and its `cpu.stat` from the run summary.
 */
export function CgroupTree({ store, figures }: { store: AppStore; figures: RunFigures }) {
  const groups = useAppState(store, (s) => s.loaded?.cgroups ?? NO_GROUPS);
  if (groups.length === 0) return null;
  // A new hierarchy starts folded as the default; a re-run of the same one keeps what the user opened.
  return <TreeView key={`${groups.length}:${groups[0]?.name ?? ''}:${groups[groups.length - 1]?.name ?? ''}`} store={store} figures={figures} groups={groups} />;
}

function TreeView({ store, figures, groups }: { store: AppStore; figures: RunFigures; groups: readonly CgroupInfo[] }) {
  const tree = useMemo(() => buildCgroupTree(groups), [groups]);
  const frameGroups = useAppStateEvery(store, (s) => s.frame?.cgroups ?? NO_FRAME);
  const nowNs = useAppStateEvery(store, (s) => s.frame?.nowNs ?? 0);
  const now = useMemo(() => cgroupNow(tree, frameGroups), [tree, frameGroups]);
  const live = useSyncExternalStore(figures.state.subscribe, () => figures.state.get().live);
  const stats = useMemo(() => cpuStatByName(live?.bandwidth?.cpu_stat), [live]);
  const usage = useMemo(() => usageByName(live?.bandwidth?.usage), [live]);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => defaultExpanded(tree));
  const [selected, setSelected] = useState<number | undefined>(undefined);
  const rows = visibleRows(tree, expanded);
  // Each inner group's leaves, parent by parent, for its row when folded (once per run).
  const folded = useMemo(() => new Map(tree.nodes.filter((node) => !isLeaf(node)).map((node) => [node.id, leafGroups(tree, node.id)] as const)), [tree]);
  const foldedLeaves = (id: number) => folded.get(id) ?? NO_LEAF_GROUPS;
  const leaves = tree.nodes[ROOT]?.leaves ?? 0;
  const inner = tree.nodes.filter((node) => node.id !== ROOT && !isLeaf(node));
  const select = (id: number) => {
    setSelected(id);
    setExpanded((current) => revealed(tree, current, id));
  };

  return (
    <section className="panel cgroups" aria-labelledby="cgroups-title">
      <div className="cgroups-head">
        <h2 id="cgroups-title">Cgroup tree</h2>
        <span className="cgroups-count" data-testid="cgroups-count">
          {formatCount(tree.nodes.length)} groups with the root, {formatCount(leaves)} leaves ·{' '}
          <strong className={now.throttled > 0 ? 'throttled-now' : undefined}>{formatCount(now.throttled)} throttled</strong> at t = {formatTraceTime(simTimeNs(nowNs))} s
        </span>
        <span className="cgroups-actions">
          <button type="button" onClick={() => setExpanded(new Set([ROOT, ...inner.map((node) => node.id)]))}>
            Open all
          </button>
          <button type="button" onClick={() => setExpanded(defaultExpanded(tree))}>
            Fold
          </button>
        </span>
      </div>
      <ul className="legend cgroups-legend">
        <li>
          <span className="cg-mark throttled" /> throttled (a cfs_rq of the group waits for quota)
        </li>
        <li>
          <span className="cg-mark runnable" /> has runnable tasks
        </li>
        <li>
          <span className="cg-mark idle" /> nothing runnable
        </li>
        <li className="muted">A group's leaves are the marks in its row; click one, or a name, for its quota and cpu.stat.</li>
      </ul>
      <div className="cgroups-body">
        <ul className="cgroup-rows" aria-label="Cgroups">
          {rows.map((row) => {
            const node = tree.nodes[row.node];
            if (!node) return null;
            const mini = !row.expanded && node.children.length > 0 ? foldedLeaves(node.id) : NO_LEAF_GROUPS;
            return (
              <CgroupRowView
                key={row.node}
                node={node}
                level={row.level}
                expanded={row.expanded}
                throttledCpus={now.throttledCpus[node.id] ?? 0}
                runnable={now.runnable[node.id] ?? 0}
                throttledBelow={(now.throttledBelow[node.id] ?? 0) - ((now.throttledCpus[node.id] ?? 0) > 0 ? 1 : 0)}
                leafStates={leafStates(row.leaves, now)}
                leaves={row.leaves}
                mini={mini}
                miniStates={mini === NO_LEAF_GROUPS ? '' : leafStates(mini.flat(), now)}
                tree={tree}
                selected={selected}
                onToggle={() => setExpanded((current) => toggleExpanded(current, node.id))}
                onSelect={select}
              />
            );
          })}
        </ul>
        <GroupDetail tree={tree} id={selected} now={now} stats={stats} usage={usage} statsAt={live ? formatTraceTime(simTimeNs(live.nowNs)) : undefined} />
      </div>
    </section>
  );
}

/** Each leaf's state as one letter (t throttled, r runnable, i idle): a row re-renders only when one changes. */
function leafStates(leaves: readonly number[], now: CgroupNow): string {
  let states = '';
  for (const id of leaves) states += (now.throttledCpus[id] ?? 0) > 0 ? 't' : (now.runnable[id] ?? 0) > 0 ? 'r' : 'i';
  return states;
}

const STATE_CLASS: Readonly<Record<string, string>> = { t: 'throttled', r: 'runnable', i: 'idle' };
const STATE_WORDS: Readonly<Record<string, string>> = { t: 'throttled', r: 'runnable tasks', i: 'nothing runnable' };

/** The last part of a group's path: `/0/3/7` → `7`. */
function shortName(node: CgroupNode): string {
  return node.id === ROOT ? '/' : (node.name.split('/').pop() ?? node.name);
}

interface RowProps {
  readonly node: CgroupNode;
  readonly level: number;
  readonly expanded: boolean;
  readonly throttledCpus: number;
  readonly runnable: number;
  /** Groups throttled below this one (not counting itself). */
  readonly throttledBelow: number;
  readonly leafStates: string;
  readonly leaves: readonly number[];
  /** Folded: every leaf below, parent by parent, as small marks; and their states. */
  readonly mini: readonly (readonly number[])[];
  readonly miniStates: string;
  readonly tree: Tree;
  readonly selected: number | undefined;
  onToggle(): void;
  onSelect(id: number): void;
}

const CgroupRowView = memo(
  function CgroupRowView({ node, level, expanded, throttledCpus, runnable, throttledBelow, leafStates: states, leaves, mini, miniStates, tree, selected, onToggle, onSelect }: RowProps) {
    const hasChildren = node.children.length > 0;
    /** Arrow keys move along a strip of leaves. */
    const onStripKey = (event: ReactKeyboardEvent<HTMLButtonElement>) => {
      if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
      event.preventDefault();
      const next = (event.key === 'ArrowRight' ? event.currentTarget.nextElementSibling : event.currentTarget.previousElementSibling) as HTMLElement | null;
      next?.focus();
    };
    return (
      <li className={`cgroup-row${selected === node.id ? ' selected' : ''}`} data-group={node.name} data-level={level} data-throttled={throttledCpus > 0 ? 'true' : 'false'}>
        <div className="cgroup-line" style={{ paddingLeft: `${level * 20}px` }}>
          {hasChildren ? (
            <button type="button" className="cg-toggle" aria-expanded={expanded} aria-label={`${expanded ? 'Fold' : 'Open'} ${node.name}`} onClick={onToggle}>
              {expanded ? '▾' : '▸'}
            </button>
          ) : (
            <span className="cg-toggle-space" />
          )}
          <button type="button" className="cg-name" aria-pressed={selected === node.id} onClick={() => onSelect(node.id)} title={`${node.name}: quota ${formatQuota(node)}`}>
            <code>{node.id === ROOT ? '/ (root)' : node.name}</code>
          </button>
          {throttledCpus > 0 && (
            <span className="cg-badge throttled" data-testid="cg-throttled">
              throttled on {throttledCpus} CPU{throttledCpus === 1 ? '' : 's'}
            </span>
          )}
          {node.quotaUs !== undefined && <span className="cg-quota">quota {formatQuota(node)}</span>}
          {node.cpuWeight !== undefined && node.cpuWeight !== 100 && <span className="cg-quota">weight {node.cpuWeight}</span>}
          {node.tasks > 0 && <span className="cg-facts">{runnable} of {node.tasks} tasks runnable</span>}
          {hasChildren && (
            <span className="cg-facts">
              {formatCount(node.descendants)} below
              {throttledBelow > 0 ? (
                <>
                  , <strong className="throttled-now">{formatCount(throttledBelow)} throttled</strong>
                </>
              ) : (
                ', none throttled'
              )}
            </span>
          )}
        </div>
        {mini.length > 0 && (
          <div className="cg-minimap" style={{ marginLeft: `${level * 20 + 26}px` }} data-testid="cg-minimap">
            {(() => {
              let position = 0;
              return mini.map((group, index) => (
                <span key={index} className="cg-mini-group">
                  {group.map((id) => {
                    const state = miniStates[position++] ?? 'i';
                    const leaf = tree.nodes[id];
                    return (
                      <span
                        key={id}
                        className={`cg-mini ${STATE_CLASS[state] ?? 'idle'}${selected === id ? ' selected' : ''}`}
                        data-group={leaf?.name}
                        title={`${leaf?.name ?? ''}: ${STATE_WORDS[state] ?? ''}`}
                        onClick={() => onSelect(id)}
                      />
                    );
                  })}
                </span>
              ));
            })()}
          </div>
        )}
        {leaves.length > 0 && (
          <div className="cg-strip" role="group" aria-label={`Leaves of ${node.name}`} style={{ marginLeft: `${level * 20 + 26}px` }}>
            {leaves.map((id, index) => {
              const leaf = tree.nodes[id];
              const state = states[index] ?? 'i';
              if (!leaf) return null;
              return (
                <button
                  key={id}
                  type="button"
                  tabIndex={index === 0 ? 0 : -1}
                  className={`cg-leaf cg-mark ${STATE_CLASS[state] ?? 'idle'}${selected === id ? ' selected' : ''}`}
                  data-group={leaf.name}
                  aria-label={`${leaf.name}: ${STATE_WORDS[state] ?? ''}`}
                  aria-pressed={selected === id}
                  title={`${leaf.name}: ${STATE_WORDS[state] ?? ''}; quota ${formatQuota(leaf)}`}
                  onClick={() => onSelect(id)}
                  onKeyDown={onStripKey}
                >
                  {leaves.length <= 16 ? shortName(leaf) : ''}
                </button>
              );
            })}
          </div>
        )}
      </li>
    );
  },
  (before, after) =>
    before.node === after.node &&
    before.level === after.level &&
    before.expanded === after.expanded &&
    before.throttledCpus === after.throttledCpus &&
    before.runnable === after.runnable &&
    before.throttledBelow === after.throttledBelow &&
    before.leafStates === after.leafStates &&
    before.leaves === after.leaves &&
    before.mini === after.mini &&
    before.miniStates === after.miniStates &&
    before.tree === after.tree &&
    (before.selected === after.selected || (!concerns(before, before.selected) && !concerns(after, after.selected))),
);

/** Whether a row shows the group `id` (itself, a leaf of its strip, or a mark of its folded leaves). */
function concerns(row: RowProps, id: number | undefined): boolean {
  if (id === undefined) return false;
  return row.node.id === id || row.leaves.includes(id) || row.mini.some((group) => group.includes(id));
}

/** The selected group: where it sits, its quota, its state now and its cpu.stat. */
function GroupDetail({
  tree,
  id,
  now,
  stats,
  usage,
  statsAt,
}: {
  tree: Tree;
  id: number | undefined;
  now: CgroupNow;
  stats: ReadonlyMap<string, CpuStat>;
  usage: ReadonlyMap<string, number>;
  statsAt: string | undefined;
}) {
  if (id === undefined) {
    return (
      <aside className="cgroup-detail muted" aria-label="Selected cgroup">
        Click a group (a name or a leaf mark) for its quota, its state now and its <code>cpu.stat</code>.
      </aside>
    );
  }
  const node = tree.nodes[id];
  if (!node) return null;
  const stat = stats.get(node.name);
  const usageUsec = usage.get(node.name);
  const parent = node.parent === undefined ? undefined : tree.nodes[node.parent];
  const throttled = now.throttledCpus[id] ?? 0;
  return (
    <aside className="cgroup-detail" aria-label="Selected cgroup" data-testid="cgroup-detail">
      <h3>
        <code>{node.id === ROOT ? '/ (root)' : withPathBreaks(node.name)}</code>
        {throttled > 0 && <span className="cg-badge throttled">throttled</span>}
      </h3>
      <dl>
        <dt>parent</dt>
        <dd>{parent ? <code>{parent.name}</code> : '—'}</dd>
        <dt>depth</dt>
        <dd>{node.depth}</dd>
        <dt>cpu.max</dt>
        <dd>{formatQuota(node)}</dd>
        {node.cpuWeight !== undefined && (
          <>
            <dt>cpu.weight</dt>
            <dd data-testid="cgroup-weight">{node.cpuWeight}</dd>
          </>
        )}
        <dt>tasks</dt>
        <dd>{node.tasks}</dd>
        {node.children.length > 0 && (
          <>
            <dt>below</dt>
            <dd>
              {formatCount(node.descendants)} groups, {formatCount(node.leaves)} leaves
            </dd>
          </>
        )}
        <dt>now</dt>
        <dd data-testid="cgroup-now">
          {throttled > 0 ? `throttled on ${throttled} CPU${throttled === 1 ? '' : 's'}` : 'not throttled'}, {now.runnable[id] ?? 0} runnable
          {node.children.length > 0 ? `, ${formatCount(now.throttledBelow[id] ?? 0)} throttled in the subtree` : ''}
        </dd>
      </dl>
      <h4>
        <code>cpu.stat</code>
        {statsAt !== undefined && <span className="muted"> at t = {statsAt} s</span>}
      </h4>
      {usageUsec !== undefined && (
        <dl data-testid="cpu-usage">
          <dt>usage_usec</dt>
          <dd title="CPU time of the group's tasks and its descendants' so far">{formatCount(usageUsec)}</dd>
        </dl>
      )}
      {stat ? (
        <>
          <dl data-testid="cpu-stat">
            <dt>nr_periods</dt>
            <dd>{formatCount(stat.nr_periods)}</dd>
            <dt>nr_throttled</dt>
            <dd>{formatCount(stat.nr_throttled)}</dd>
            <dt>throttled_usec</dt>
            <dd>{formatCount(stat.throttled_usec)}</dd>
          </dl>
          <p className="muted" data-testid="throttled-usec-note">
            <code>throttled_usec</code> adds up the time each CPU&apos;s cfs_rq of the group spent throttled, as the kernel&apos;s{' '}
            <code>cfs_b-&gt;throttled_time</code> does (<code>unthrottle_cfs_rq()</code>), so it can exceed the time elapsed. Throttles still on are counted up
            to now; the kernel adds each at its unthrottle.
          </p>
        </>
      ) : (
        <p className="muted">{node.quotaUs === undefined ? 'No quota on this group: it is never throttled itself.' : 'Not read yet.'}</p>
      )}
    </aside>
  );
}

/** A cgroup path with a line-break chance after each `/`, so a long path wraps between its groups. */
function withPathBreaks(path: string) {
  return path.split('/').map((part, index, parts) => (
    <Fragment key={index}>
      {part}
      {index < parts.length - 1 && (
        <>
          /<wbr />
        </>
      )}
    </Fragment>
  ));
}
