/**
 * The struct-layout lab's inputs from the real core: the layout report of each
 * choice, its refusals in the core's words, and a cgroup run's summary, whose
 * operations and fields the lab's heat and line counts must be able to name.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { initSync, run_summary, SimHandle, struct_layout_json } from '../../wasm-pkg/sched_wasm.js';
import { cgroupsOf, STRUCT_NAMES, type CacheMisses, type LayoutReport } from './protocol';
import { explicitLayout, fieldHeat, linesTouched, moveFieldBy, ordersOf, touchedFields } from '../store/structLayout';
import { buildCgroupTree, cgroupNow } from '../store/cgroupTree';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** A small cgroup tree on the teaching machine: 3 groups of 3 leaves under a 50 % quota. */
const SMALL = JSON.stringify({
  title: 'cgroup tree d2 w3',
  seed: 7,
  duration_ms: 60,
  topology: { preset: 'teaching-small' },
  workloads: [{ kind: 'cgroup_tree', depth: 2, width: 3, quota_pct: 50, period_us: 10000, leaf: { message_threads: 1, worker_threads: 2, cputime_us: 1000, sleeptime_us: 500 } }],
});

const report = (spec: string) => JSON.parse(struct_layout_json(spec)) as LayoutReport;

describe('the layout model through the wasm bridge', () => {
  beforeAll(() => {
    initSync({ module: readFileSync(`${repo}web/wasm-pkg/sched_wasm_bg.wasm`) });
  });

  it('lays out every field once, and the reordering packs cfs_rq into fewer lines', () => {
    const original = report('');
    const reordered = report('"reordered"');
    for (const struct of STRUCT_NAMES) {
      const names = original[struct].fields.map((field) => field.name);
      expect(new Set(names).size).toBe(names.length);
      expect([...reordered[struct].fields.map((field) => field.name)].sort()).toEqual([...names].sort());
      expect(original.defs[struct].map((def) => def.name)).toEqual(names);
    }
    expect(reordered.cfs_rq.lines).toBeLessThan(original.cfs_rq.lines);
    // Every field an operation touches is a field of its structure.
    for (const operation of original.operations) {
      for (const struct of STRUCT_NAMES) {
        const names = new Set(original[struct].fields.map((field) => field.name));
        for (const field of touchedFields(operation, struct)) expect(names.has(field), `${operation.operation}: ${struct}.${field}`).toBe(true);
      }
    }
  });

  it('takes an order the lab made by moving a field, and refuses a broken one with the reason', () => {
    const original = report('');
    const orders = ordersOf(original);
    const moved = { ...orders, cfs_rq: moveFieldBy(orders.cfs_rq, 'tg', -5) };
    const explicit = report(JSON.stringify(explicitLayout(moved, orders)));
    expect(explicit.cfs_rq.fields.map((field) => field.name)).toEqual(moved.cfs_rq);
    expect(explicit.sched_entity.fields.map((field) => field.name)).toEqual(orders.sched_entity);
    const missing = JSON.stringify({ cfs_rq: orders.cfs_rq.filter((name) => name !== 'tg') });
    expect(() => struct_layout_json(missing)).toThrow('cfs_rq: field `tg` is missing');
    expect(() => struct_layout_json(JSON.stringify({ cfs_rq: [...orders.cfs_rq, 'load'] }))).toThrow('cfs_rq: field `load` is listed twice');
  });

  it('gives a cgroup run misses and calls the heat can spread over the fields', () => {
    const summary = JSON.parse(run_summary(SMALL, 'small', 7)) as { cache_misses: CacheMisses };
    const misses = summary.cache_misses;
    const original = report('');
    expect(misses.layout).toBe('original');
    expect(misses.total).toBeGreaterThan(0);
    expect(misses.detail.map((row) => row.operation).sort()).toEqual(original.operations.map((operation) => operation.operation).sort());
    const heat = fieldHeat(original.operations, misses.detail);
    const hottest = Math.max(...heat.cfs_rq.values());
    const enqueue = misses.detail.find((row) => row.operation === 'enqueue_entity');
    expect(hottest).toBeGreaterThanOrEqual(enqueue?.calls ?? Infinity);
    // The series' point, as the lab's line counts show it: the load-average and unthrottle paths touch fewer lines reordered.
    const reordered = report('"reordered"');
    const lines = (layout: LayoutReport, name: string) => {
      const operation = layout.operations.find((entry) => entry.operation === name);
      return operation ? STRUCT_NAMES.reduce((sum, struct) => sum + linesTouched(layout[struct], touchedFields(operation, struct)).length, 0) : 0;
    };
    for (const name of ['update_load_avg', 'update_blocked_averages', 'tg_unthrottle_up']) expect(lines(reordered, name), name).toBeLessThan(lines(original, name));
  });

  it('lists the cgroups and marks throttled ones frame by frame', () => {
    const sim = new SimHandle(SMALL, 'small');
    const groups = cgroupsOf(sim.cgroups_json());
    const tree = buildCgroupTree(groups);
    expect(tree.nodes).toHaveLength(13);
    let throttledFrames = 0;
    for (let ms = 1; ms <= 60; ms++) {
      sim.run_until(ms * 1e6);
      const now = cgroupNow(tree, sim.frame_cgroups());
      if (now.throttled > 0) throttledFrames += 1;
    }
    expect(throttledFrames).toBeGreaterThan(0);
    sim.free();
  });

  it('carries each cgroup\'s cpu.weight, and a heavier sibling runs more', () => {
    const hog = (comm: string) => ({
      kind: 'tasks',
      unit: 'loops',
      tasks: [{ comm, count: 1, cpus: '0', program: [{ op: 'loop', body: [{ op: 'run', duration: { dist: 'fixed', us: 1000 } }, { op: 'complete' }] }] }],
    });
    const weighted = JSON.stringify({
      title: 'two weighted groups on CPU 0',
      seed: 1,
      duration_ms: 400,
      topology: { preset: 'teaching-small' },
      cgroups: [
        { path: '/light', workloads: [0] },
        { path: '/heavy', cpu_weight: 300, workloads: [1] },
      ],
      workloads: [hog('light'), hog('heavy')],
    });
    const sim = new SimHandle(weighted, 'weighted');
    expect(cgroupsOf(sim.cgroups_json()).map((group) => [group.name, group.cpuWeight])).toEqual([
      ['/light', 100],
      ['/heavy', 300],
    ]);
    sim.free();
    const summary = JSON.parse(run_summary(weighted, 'weighted', 1)) as { throughput_by_workload: { values: { value: number }[] }[] };
    const [light = 0, heavy = 0] = summary.throughput_by_workload.map((workload) => workload.values[0]?.value ?? 0);
    expect(heavy / (light + heavy)).toBeGreaterThan(0.7);
    expect(heavy / (light + heavy)).toBeLessThan(0.8);
  });
});
