import { describe, expect, it, vi } from 'vitest';
import { appendTrace, createAppStore, isIdle, TRACE_KEEP } from './app';
import { createController } from './controller';
import type { EngineClient } from '../engine/client';
import type { Frame, TraceLine } from '../engine/protocol';
import type { SimTimeNs } from '../base/types';

function frame(events: number, finished = false, newTrace: TraceLine[] = []): Frame {
  return {
    nowNs: (events * 1000) as SimTimeNs,
    events,
    finished,
    running: new Uint32Array(2),
    nrRunning: new Uint32Array(2),
    busyNs: new Float64Array(2),
    latency: new Float64Array(10),
    counters: new Float64Array(13),
    throughput: [],
    newTrace,
    traceTotal: newTrace.length,
  };
}

function line(index: number): TraceLine {
  return { index, timeNs: index as SimTimeNs, cpu: 0, event: 'sched_switch', payload: '', reason: '' };
}

function fakeEngine(overrides: Partial<Record<'load' | 'step' | 'advance', unknown>> = {}): EngineClient {
  let events = 0;
  return {
    load: vi.fn(async () => ({
      ok: true,
      loaded: { machine: { name: 'm', sockets: 1, llcs: 1, cores: 1, nodes: 1, threads_per_core: 2, frequency_mhz: 2000, cpus: [] }, tasks: [], workloads: [], endNs: 1e9 },
      frame: frame(0),
    })),
    step: vi.fn(async () => frame(++events)),
    advance: vi.fn(async () => frame((events += 10))),
    summaryJson: vi.fn(async () => '{}'),
    ...overrides,
  } as unknown as EngineClient;
}

describe('app store', () => {
  it('keeps only the newest trace records', () => {
    const many = Array.from({ length: TRACE_KEEP + 50 }, (_, index) => line(index));
    const kept = appendTrace([], many);
    expect(kept.length).toBe(TRACE_KEEP);
    expect(kept[0]?.index).toBe(50);
  });

  it('is idle only when nothing runs or waits', () => {
    const store = createAppStore();
    expect(isIdle(store.get())).toBe(false);
    store.set({ status: 'ready' });
    expect(isIdle(store.get())).toBe(true);
    store.set({ busy: true });
    expect(isIdle(store.get())).toBe(false);
  });
});

describe('controller', () => {
  it('steps exactly one event', async () => {
    const store = createAppStore();
    const controller = createController(store, fakeEngine());
    await controller.load('teaching-small', '{}');
    expect(store.get().frame?.events).toBe(0);
    await controller.step();
    expect(store.get().frame?.events).toBe(1);
    expect(isIdle(store.get())).toBe(true);
  });

  it('keeps the text and lists the problems when a scenario does not load', async () => {
    const store = createAppStore();
    const problems = [{ path: 'topology.llcs_per_socket', message: 'must be at least 1, got 0' }];
    const controller = createController(store, fakeEngine({ load: vi.fn(async () => ({ ok: false, problems })) }));
    await controller.load('custom', '{"my": "text"}');
    expect(store.get().status).toBe('error');
    expect(store.get().problems).toEqual(problems);
    expect(store.get().scenarioText).toBe('{"my": "text"}');
  });

  it('does not play a finished run, and clamps the speed', async () => {
    const store = createAppStore();
    const controller = createController(
      store,
      fakeEngine({ step: vi.fn(async () => frame(5, true)) }),
    );
    await controller.load('x', '{}');
    await controller.step();
    controller.play();
    expect(store.get().playing).toBe(false);
    controller.setSpeed(99);
    expect(store.get().speedIndex).toBe(2);
  });
});
