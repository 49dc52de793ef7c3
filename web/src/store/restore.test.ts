/** The controller's seek and restore (opening a share link or the kept session) against a fake engine. */
import { describe, expect, it, vi } from 'vitest';
import { createAppStore, isIdle } from './app';
import { createController, FTRACE_CHUNK, type RestoreRequest } from './controller';
import type { EngineClient } from '../engine/client';
import type { Frame, LoadResult } from '../engine/protocol';
import { simTimeNs, type SimTimeNs } from '../base/types';
import { testFrame } from './testFrames';

/** Events come every 1000 ns; the run ends at 1,000,000 ns. */
const END_NS = 1_000_000;

function frame(events: number, nowNs: number): Frame {
  return testFrame({ events, nowNs: nowNs as SimTimeNs, finished: nowNs >= END_NS });
}

/** A simulated run as the worker's `seek` drives it: an event every 1000 ns, the clock jumping to a target. */
function fakeEngine(accept: (text: string) => boolean = () => true) {
  let events = 0;
  let now = 0;
  const loaded = (): LoadResult => ({
    ok: true,
    loaded: {
      machine: { name: 'm', sockets: 1, llcs: 1, cores: 1, nodes: 1, threads_per_core: 2, frequency_mhz: 2000, cpus: [] },
      tasks: [],
      workloads: [],
      endNs: simTimeNs(END_NS),
      shards: [],
      power: { enabled: false },
      cgroups: [],
    },
    frame: frame(0, 0),
  });
  const engine = {
    loads: [] as string[],
    load: vi.fn(async (text: string): Promise<LoadResult> => {
      engine.loads.push(text);
      if (!accept(text)) return { ok: false, problems: [{ path: 'policy.x', message: 'refused' }] };
      events = 0;
      now = 0;
      return loaded();
    }),
    seek: vi.fn(async (targetEvents: number | undefined, timeNs: number, maxEvents: number) => {
      if (targetEvents !== undefined && events < targetEvents) {
        const run = Math.min(maxEvents, targetEvents - events, (END_NS - now) / 1000);
        events += run;
        now += run * 1000;
      } else if (now < timeNs) {
        const target = Math.min(timeNs, END_NS);
        const run = Math.min(maxEvents, Math.floor(target / 1000) - Math.floor(now / 1000));
        events += run;
        now = run === Math.floor(target / 1000) - Math.floor(now / 1000) ? target : now + run * 1000;
      }
      return frame(events, now);
    }),
    traceLen: vi.fn(async () => 250_001),
    ftraceText: vi.fn(async (from: number, to: number, reasons: boolean) => `${from === 0 ? '# tracer: nop\n' : ''}[${from},${to})${reasons ? ' #' : ''}\n`),
    summaryJson: vi.fn(async () => '{"trace_hash":"ab"}'),
  };
  return engine;
}

function request(overrides: Partial<RestoreRequest> = {}): RestoreRequest {
  return {
    id: 'teaching-small',
    text: '{"seed": 42}',
    part: 'scenario',
    overrides: {},
    speedIndex: 3,
    playhead: undefined,
    editorText: undefined,
    fallback: { id: 'teaching-small', text: '{"default": true}' },
    ...overrides,
  };
}

describe('seek', () => {
  it('runs to the playhead in bounded steps and stays busy until there', async () => {
    const store = createAppStore();
    const engine = fakeEngine();
    const controller = createController(store, engine as unknown as EngineClient);
    await controller.load('teaching-small', '{}');
    const idleSeen: boolean[] = [];
    const catchUps = new Set<string>();
    store.subscribe(() => {
      idleSeen.push(isIdle(store.get()));
      const catchingUp = store.get().catchingUp;
      if (catchingUp) catchUps.add(`${catchingUp.why} to ${catchingUp.toNs}`);
    });
    await controller.seek({ timeNs: simTimeNs(500_500), events: 500 });
    expect(store.get().frame?.events).toBe(500);
    expect(store.get().frame?.nowNs).toBe(500_500);
    // Never idle on the way: the end-to-end tests wait on idle.
    expect(idleSeen.slice(0, -1).every((idle) => !idle)).toBe(true);
    expect(isIdle(store.get())).toBe(true);
    // The way there was said (the toolbar shows it), and is over.
    expect([...catchUps]).toEqual(['seek to 500500']);
    expect(store.get().catchingUp).toBeUndefined();
  });

  it('stops at the end of the run', async () => {
    const store = createAppStore();
    const controller = createController(store, fakeEngine() as unknown as EngineClient);
    await controller.load('teaching-small', '{}');
    await controller.seek({ timeNs: simTimeNs(5 * END_NS), events: undefined });
    expect(store.get().frame?.nowNs).toBe(END_NS);
    expect(store.get().frame?.finished).toBe(true);
  });
});

describe('restore', () => {
  it('loads with the overrides, selects the speed, runs to the playhead and puts back the editor text', async () => {
    const store = createAppStore();
    const engine = fakeEngine();
    const controller = createController(store, engine as unknown as EngineClient);
    const problems = await controller.restore(
      request({ overrides: { 'policy.sis_scan.enabled': true }, playhead: { timeNs: simTimeNs(20_000), events: 20 }, editorText: '{ typed' }),
    );
    expect(problems).toEqual([]);
    expect(engine.loads).toHaveLength(1);
    expect(JSON.parse(engine.loads[0] ?? '')).toEqual({ seed: 42, policy: { sis_scan: { enabled: true } } });
    const state = store.get();
    expect(state.fileText).toBe('{"seed": 42}');
    expect(state.policyOverrides).toEqual({ 'policy.sis_scan.enabled': true });
    expect(state.speedIndex).toBe(3);
    expect(state.frame?.nowNs).toBe(20_000);
    expect(state.scenarioText).toBe('{ typed');
    expect(isIdle(state)).toBe(true);
  });

  it('runs without the overrides when the engine refuses them, and says so', async () => {
    const store = createAppStore();
    const engine = fakeEngine((text) => !text.includes('policy'));
    const controller = createController(store, engine as unknown as EngineClient);
    const problems = await controller.restore(request({ overrides: { 'policy.sis_scan.enabled': true } }));
    expect(problems).toEqual([{ path: 'set policy.x', message: 'refused; ran without the overrides' }]);
    expect(store.get().status).toBe('ready');
    expect(store.get().policyOverrides).toEqual({});
  });

  it('opens the fallback when the scenario does not load, keeping its text and problems in the editor', async () => {
    const store = createAppStore();
    const engine = fakeEngine((text) => text.includes('default'));
    const controller = createController(store, engine as unknown as EngineClient);
    const problems = await controller.restore(request({ id: 'custom', text: '{"bad": 1}', part: 'text', playhead: { timeNs: simTimeNs(5000), events: 5 } }));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('text');
    expect(problems[0]?.message).toContain('did not load (1 problem, first policy.x: refused); opened teaching-small instead');
    const state = store.get();
    expect(state.fileText).toBe('{"default": true}');
    expect(state.scenarioText).toBe('{"bad": 1}');
    expect(state.problems).toEqual([{ path: 'policy.x', message: 'refused' }]);
    expect(state.frame?.nowNs).toBe(0);
  });

  it('runs to the end for a playhead past it, and says so', async () => {
    const store = createAppStore();
    const controller = createController(store, fakeEngine() as unknown as EngineClient);
    const problems = await controller.restore(request({ playhead: { timeNs: simTimeNs(3 * END_NS), events: undefined } }));
    expect(problems).toEqual([{ path: 't', message: "0.003000 s is past the scenario's end (0.001000 s); ran to the end" }]);
    expect(store.get().frame?.finished).toBe(true);
  });
});

describe('trace export', () => {
  it('reads the trace in chunks up to its length, the header first', async () => {
    const store = createAppStore();
    const engine = fakeEngine();
    const controller = createController(store, engine as unknown as EngineClient);
    await controller.load('teaching-small', '{}');
    const chunks = await controller.ftraceText(false);
    expect(chunks).toEqual(['# tracer: nop\n[0,100000)\n', '[100000,200000)\n', '[200000,250001)\n']);
    expect(FTRACE_CHUNK).toBe(100_000);
    expect((await controller.ftraceText(true))[0]).toContain(' #');
  });
});
