import { describe, expect, it, vi } from 'vitest';
import { createAppStore } from './app';
import { createRunFigures, hasLayoutModel, originalRequest, summaryFigures } from './runFigures';
import { testFrame } from './testFrames';
import { SliceStore } from './timeline';
import { simTimeNs } from '../base/types';
import type { LoadedScenario } from '../engine/protocol';
import type { SummaryRunner } from '../engine/sweepClient';
import type { SummaryOutcome } from '../engine/sweepProtocol';

const FILE = JSON.stringify({ title: 't', seed: 9, duration_ms: 10, topology: { preset: 'teaching-small' }, workloads: [] });
const loaded = (cgroups: number): LoadedScenario => ({
  machine: { name: 'm', sockets: 1, llcs: 1, cores: 1, nodes: 1, threads_per_core: 1, frequency_mhz: 1, cpus: [] },
  tasks: [],
  workloads: [],
  endNs: simTimeNs(10_000_000),
  shards: [],
  power: { enabled: false },
  cgroups: Array.from({ length: cgroups }, (_, index) => ({ name: `/${index}`, parent: undefined, depth: 1, quotaUs: 1000, periodUs: 10_000, cpuWeight: 100, tasks: 1 })),
});
const summary = (total: number) => JSON.stringify({ sim_time_ns: 10_000_000, cache_misses: { total, detail: [], by_operation: {}, by_struct: {}, accesses: 0, remote: 0, layout: 'original', lines: {} }, bandwidth: { cpu_stat: [] } });

/** Resolves pending promise callbacks. */
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the figures behind the lab and the tree', () => {
  it('apply to runs with cgroups or a struct layout, never to a log', () => {
    const base = { fileText: FILE, policyOverrides: {} };
    expect(hasLayoutModel({ ...base, loaded: loaded(0) })).toBe(false);
    expect(hasLayoutModel({ ...base, loaded: loaded(2) })).toBe(true);
    expect(hasLayoutModel({ ...base, loaded: loaded(0), policyOverrides: { 'policy.struct_layout': 'reordered' } })).toBe(true);
    expect(hasLayoutModel({ ...base, fileText: JSON.stringify({ policy: { struct_layout: 'original' } }), loaded: loaded(0) })).toBe(true);
    expect(hasLayoutModel({ ...base, loaded: { ...loaded(2), log: { name: 'x' } } })).toBe(false);
  });

  it('run the original layout with the same settings and seed', () => {
    const request = originalRequest({ fileText: FILE, policyOverrides: { 'policy.struct_layout': 'reordered', 'policy.wake_affine.enabled': false }, scenarioId: 'custom' });
    expect(request?.seed).toBe(9);
    expect(JSON.parse(request?.text ?? '')).toMatchObject({ policy: { struct_layout: 'original', wake_affine: { enabled: false } } });
    expect(summaryFigures({ cache_misses: 3 }).cacheMisses).toBeUndefined();
  });

  it('read the summary for each frame shown, run the original once per scenario, and are settled only then', async () => {
    const store = createAppStore();
    const read = vi.fn(async () => summary(store.get().frame?.events ?? 0));
    let finish: ((value: { ok: true; summary: string }) => void) | undefined;
    const runner: SummaryRunner = {
      summary: vi.fn(() => new Promise<SummaryOutcome | undefined>((resolve) => (finish = resolve))),
      cancel: vi.fn(),
    };
    const figures = createRunFigures(store, read, runner);
    expect(figures.settled()).toBe(true);
    const slices = new SliceStore(1);
    store.set({ status: 'ready', fileText: FILE, loaded: loaded(3), slices, frame: testFrame({ events: 5, nowNs: simTimeNs(1000) }) });
    expect(runner.summary).toHaveBeenCalledTimes(1);
    expect(figures.settled()).toBe(false);
    await flush();
    expect(figures.state.get().live?.cacheMisses?.total).toBe(5);
    // The original still runs: not settled.
    expect(figures.settled()).toBe(false);
    finish?.({ ok: true, summary: summary(42) });
    await flush();
    const original = figures.state.get().original;
    expect(original.status === 'ready' && original.figures.cacheMisses?.total).toBe(42);
    expect(figures.settled()).toBe(true);
    // A new frame is read again; the original is not run again for the same scenario.
    store.set({ frame: testFrame({ events: 8, nowNs: simTimeNs(2000) }) });
    expect(figures.settled()).toBe(false);
    await flush();
    expect(figures.state.get().live?.cacheMisses?.total).toBe(8);
    expect(runner.summary).toHaveBeenCalledTimes(1);
    // Another setting: another original run.
    store.set({ policyOverrides: { 'policy.wake_affine.enabled': false } });
    expect(runner.summary).toHaveBeenCalledTimes(2);
    // A scenario without cgroups: nothing is kept or run.
    store.set({ loaded: loaded(0), policyOverrides: {} });
    expect(figures.state.get().live).toBeUndefined();
    expect(runner.cancel).toHaveBeenCalled();
    expect(figures.settled()).toBe(true);
  });
});
