import { describe, expect, it, vi } from 'vitest';
import { appendTrace, createAppStore, isIdle, TRACE_KEEP } from './app';
import { createController } from './controller';
import type { EngineClient } from '../engine/client';
import type { Decision, ExplainResult, Frame, TraceLine } from '../engine/protocol';
import { cpuId, type SimTimeNs } from '../base/types';
import { testFrame, testLoaded } from './testFrames';

function frame(events: number, finished = false, newTrace: TraceLine[] = []): Frame {
  return testFrame({ events, nowNs: (events * 1000) as SimTimeNs, finished, newTrace, traceTotal: newTrace.length });
}

function line(index: number): TraceLine {
  return { index, timeNs: index as SimTimeNs, cpu: 0, event: 'sched_switch', payload: '', reason: '' };
}

function decisionFor(index: number): Decision {
  return {
    record_index: index,
    event: 'sched_wakeup',
    kind: 'wakeup',
    pid: 1011,
    comm: 'w',
    time_ns: index,
    kernel: '6.5',
    from_cpu: 3,
    prev_cpu: 0,
    allowed_cpus: [0, 1],
    records: [{ index, event: 'sched_wakeup' }],
    steps: [{ text: 'target CPU 0 is busy', step: 'scan', cpus: [{ cpu: 0, state: 'busy', nr_running: 1 }], found: null }],
    chosen_cpu: 1,
    summary: 'idle SMT sibling CPU 1',
  };
}

function wakeupLine(index: number): TraceLine {
  return { index, timeNs: index as SimTimeNs, cpu: 3, event: 'sched_wakeup', payload: 'comm=w pid=1011 prio=120 target_cpu=001', reason: '' };
}

function fakeEngine(overrides: Partial<Record<'load' | 'step' | 'advance' | 'explain' | 'switchRecord', unknown>> = {}): EngineClient {
  let events = 0;
  return {
    load: vi.fn(async () => ({
      ok: true,
      loaded: testLoaded(),
      frame: frame(0),
    })),
    step: vi.fn(async () => frame(++events)),
    advance: vi.fn(async () => frame((events += 10))),
    seek: vi.fn(async (_events: number | undefined, timeNs: number) => frame((events = Math.max(events, Math.ceil(timeNs / 1000))))),
    summaryJson: vi.fn(async () => '{}'),
    explain: vi.fn(async (index: number): Promise<ExplainResult> => ({ ok: true, decision: decisionFor(index) })),
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
  it('applies the frame of one step', async () => {
    const store = createAppStore();
    const controller = createController(store, fakeEngine());
    await controller.load('teaching-small', '{}');
    expect(store.get().frame?.events).toBe(0);
    await controller.step();
    expect(store.get().frame?.events).toBe(1);
    expect(isIdle(store.get())).toBe(true);
  });

  it('keeps the last good run loaded and playable when new text does not load', async () => {
    const store = createAppStore();
    const problems = [{ path: 'seed', message: 'must be at least 0, got -1' }];
    const load = vi.fn(async (text: string) =>
      text.includes('bad')
        ? { ok: false, problems }
        : { ok: true, loaded: { machine: { name: 'm', sockets: 1, llcs: 1, cores: 1, nodes: 1, threads_per_core: 1, frequency_mhz: 1, cpus: [] }, tasks: [], workloads: [], endNs: 1e9, shards: [], power: { enabled: false }, cgroups: [] }, frame: frame(0) },
    );
    const controller = createController(store, fakeEngine({ load }));
    await controller.load('teaching-small', '{"good": 1}');
    await controller.step();
    const run = store.get().loaded;
    expect(await controller.load('custom', '{"bad": 1}')).toBe(false);
    const state = store.get();
    expect(state.status).toBe('ready');
    expect(state.loaded).toBe(run);
    expect(state.scenarioId).toBe('teaching-small');
    expect(state.fileText).toBe('{"good": 1}');
    expect(state.scenarioText).toBe('{"bad": 1}');
    expect(state.problems).toEqual(problems);
    // Still playable.
    await controller.step();
    expect(store.get().frame?.events).toBe(2);
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

describe('inspecting an event', () => {
  it('asks the engine to explain a wakeup, is busy meanwhile, and selects its task', async () => {
    const store = createAppStore();
    let answer: (result: ExplainResult) => void = () => undefined;
    const explain = vi.fn(() => new Promise<ExplainResult>((resolve) => (answer = resolve)));
    const controller = createController(store, fakeEngine({ explain }));
    await controller.load('teaching-small', '{}');
    const pending = controller.inspect(wakeupLine(48));
    expect(explain).toHaveBeenCalledWith(48);
    expect(store.get().selection).toEqual({ index: 48, event: 'sched_wakeup', timeNs: 48, pid: 1011 });
    expect(store.get().inspection.status).toBe('loading');
    expect(isIdle(store.get())).toBe(false);
    answer({ ok: true, decision: decisionFor(48) });
    await pending;
    const inspection = store.get().inspection;
    expect(inspection.status === 'ready' && inspection.decision.chosen_cpu).toBe(1);
    expect(isIdle(store.get())).toBe(true);
  });

  it('says at once that a switch cannot be explained, without a re-run', async () => {
    const store = createAppStore();
    const engine = fakeEngine();
    const controller = createController(store, engine);
    await controller.load('teaching-small', '{}');
    const next = 'prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w next_pid=1011 next_prio=120';
    await controller.inspect({ ...line(20), payload: next });
    expect(engine.explain).not.toHaveBeenCalled();
    const inspection = store.get().inspection;
    expect(inspection.status === 'message' && inspection.message).toContain('sched_switch event is not a placement decision');
    expect(store.get().selection?.pid).toBe(1011);
  });

  it("shows the engine's message for a record it cannot explain", async () => {
    const store = createAppStore();
    const message = 'record 37 (sched_migrate_task of pid 1000 at 0.000014 s) is a move by newidle_balance, not a wakeup or fork placement';
    const controller = createController(store, fakeEngine({ explain: vi.fn(async () => ({ ok: false, message })) }));
    await controller.load('teaching-small', '{}');
    await controller.inspect({ ...wakeupLine(37), event: 'sched_migrate_task' });
    expect(store.get().inspection).toEqual({ status: 'message', message });
  });

  it('keeps only the newest explanation, and a new scenario clears the selection', async () => {
    const store = createAppStore();
    const answers: ((result: ExplainResult) => void)[] = [];
    const explain = vi.fn(() => new Promise<ExplainResult>((resolve) => answers.push(resolve)));
    const controller = createController(store, fakeEngine({ explain }));
    await controller.load('teaching-small', '{}');
    const first = controller.inspect(wakeupLine(10));
    const second = controller.inspect(wakeupLine(20));
    answers[1]?.({ ok: true, decision: decisionFor(20) });
    answers[0]?.({ ok: true, decision: decisionFor(10) });
    await Promise.all([first, second]);
    const inspection = store.get().inspection;
    expect(inspection.status === 'ready' && inspection.decision.record_index).toBe(20);
    await controller.load('teaching-small', '{}');
    expect(store.get().selection).toBeUndefined();
    expect(store.get().inspection.status).toBe('none');
  });
});

describe('changing the policy', () => {
  const file = JSON.stringify({ title: 't', seed: 7, policy: { shared_runq: { mode: 'all', shard_size: 6 } } }, null, 2);
  const loaded = (shards: number) => ({
    machine: { name: 'm', sockets: 1, llcs: 1, cores: 1, nodes: 1, threads_per_core: 2, frequency_mhz: 2000, cpus: [] },
    tasks: [],
    workloads: [],
    endNs: 1e9,
    shards: Array.from({ length: shards }, (_, index) => ({ llc: 0, index, cpus: [index] })),
  });

  function engineRecording(refuse: (text: string) => boolean = () => false) {
    const texts: string[] = [];
    const load = vi.fn(async (text: string) => {
      texts.push(text);
      if (refuse(text)) return { ok: false, problems: [{ path: 'policy.shared_runq.shard_size', message: 'must be at least 0, got -1' }] };
      const mode = (JSON.parse(text) as { policy?: { shared_runq?: { mode?: string } } }).policy?.shared_runq?.mode;
      return { ok: true, loaded: loaded(mode === 'off' ? 0 : 6), frame: frame(0) };
    });
    return { engine: fakeEngine({ load }), texts };
  }

  it('re-runs the same file and seed with the override applied, and a reset goes back to the file', async () => {
    const store = createAppStore();
    const { engine, texts } = engineRecording();
    const controller = createController(store, engine);
    await controller.load('shared-runq-schbench-pipe-skylake', file);
    await controller.step();
    expect(store.get().frame?.events).toBe(1);
    expect(await controller.updatePolicy(() => ({ 'policy.shared_runq.mode': 'off' }))).toBe(true);
    expect(JSON.parse(texts[1] ?? '')).toEqual({ title: 't', seed: 7, policy: { shared_runq: { mode: 'off', shard_size: 6 } } });
    expect(store.get().policyOverrides).toEqual({ 'policy.shared_runq.mode': 'off' });
    expect(store.get().loaded?.shards).toEqual([]);
    // The new run is taken on to where the playhead was.
    expect(store.get().frame?.nowNs).toBe(1000);
    expect(store.get().fileText).toBe(file);
    expect(store.get().scenarioId).toBe('shared-runq-schbench-pipe-skylake');
    // Restart keeps the settings, from time 0; a reset runs the file's own text.
    await controller.restart();
    expect(JSON.parse(texts[2] ?? '')).toMatchObject({ policy: { shared_runq: { mode: 'off' } } });
    expect(store.get().frame?.nowNs).toBe(0);
    await controller.updatePolicy(() => ({}));
    expect(texts[3]).toBe(file);
    expect(store.get().loaded?.shards).toHaveLength(6);
    expect(isIdle(store.get())).toBe(true);
  });

  it('keeps the last good run loaded and playable when the engine refuses the settings', async () => {
    const store = createAppStore();
    const { engine } = engineRecording((text) => text.includes('-1'));
    const controller = createController(store, engine);
    await controller.load('s', file);
    await controller.step();
    const before = store.get().loaded;
    expect(await controller.updatePolicy(() => ({ 'policy.shared_runq.shard_size': -1 }))).toBe(false);
    expect(store.get().policyProblems).toEqual([{ path: 'policy.shared_runq.shard_size', message: 'must be at least 0, got -1' }]);
    expect(store.get().status).toBe('ready');
    expect(store.get().loaded).toBe(before);
    expect(store.get().frame?.events).toBe(1);
    expect(store.get().policyOverrides).toEqual({});
    await controller.step();
    expect(store.get().frame?.events).toBe(2);
    // A good change clears the message.
    await controller.updatePolicy(() => ({ 'policy.shared_runq.shard_size': 0 }));
    expect(store.get().policyProblems).toEqual([]);
  });

  it('applies quick changes one after another, each on the settings the previous left', async () => {
    const store = createAppStore();
    const { engine, texts } = engineRecording();
    const controller = createController(store, engine);
    await controller.load('s', file);
    const first = controller.updatePolicy((current) => ({ ...current, 'policy.shared_runq.mode': 'wakeups' }));
    const second = controller.updatePolicy((current) => ({ ...current, 'policy.shared_runq.shard_size': 0 }));
    await Promise.all([first, second]);
    expect(JSON.parse(texts[2] ?? '')).toMatchObject({ policy: { shared_runq: { mode: 'wakeups', shard_size: 0 } } });
    expect(store.get().policyOverrides).toEqual({ 'policy.shared_runq.mode': 'wakeups', 'policy.shared_runq.shard_size': 0 });
  });

  it('starts each newly loaded scenario from its own file', async () => {
    const store = createAppStore();
    const { engine } = engineRecording();
    const controller = createController(store, engine);
    await controller.load('s', file);
    await controller.updatePolicy(() => ({ 'policy.shared_runq.mode': 'off' }));
    await controller.load('teaching-small', '{"title": "other"}');
    expect(store.get().policyOverrides).toEqual({});
    expect(store.get().fileText).toBe('{"title": "other"}');
  });
});

describe('the timeline', () => {
  const cpu = { core: 0, llc: 0, node: 0, socket: 0, thread: 0 };
  const loadTwoCpus = vi.fn(async () => ({
    ok: true,
    loaded: testLoaded({ machine: { ...testLoaded().machine, cpus: [cpu, { ...cpu, thread: 1 }] } }),
    frame: frame(0),
  }));

  it('builds slices from each frame\'s switches, and a new run starts empty', async () => {
    const store = createAppStore();
    const step = vi.fn(async () => ({ ...frame(4), switches: new Float64Array([100, 0, 1001, 200, 1, 1002, 300, 0, 0]) }));
    const controller = createController(store, fakeEngine({ load: loadTwoCpus, step }));
    await controller.load('two', '{}');
    await controller.step();
    const slices = store.get().slices;
    expect(slices?.switches).toBe(3);
    expect(slices?.sliceAt(cpuId(0), 150)).toEqual({ start: 100, end: 300, pid: 1001 });
    // The running slice ends at the frame's clock (4 events = 4000 ns here).
    expect(slices?.sliceAt(cpuId(1), 3999)).toEqual({ start: 200, end: 4000, pid: 1002 });
    await controller.load('two', '{}');
    expect(store.get().slices).not.toBe(slices);
    expect(store.get().slices?.switches).toBe(0);
  });

  it('goes back by restoring the latest snapshot before the target and rewinding its own stores, not by re-running', async () => {
    const store = createAppStore();
    // The engine: a switch every microsecond on CPU 0, a snapshot at 0 (the load) and every 4 us.
    let nowUs = 0;
    const frameAt = (us: number, from: number) => {
      const switches: number[] = [];
      for (let t = from + 1; t <= us; t++) switches.push(t * 1000, 0, 1000 + t);
      return { ...frame(us), switches: new Float64Array(switches), snapshot: us % 4 === 0 ? us / 4 : undefined };
    };
    const load = vi.fn(async () => ({ ...(await loadTwoCpus()), frame: { ...frame(0), snapshot: 0 } }));
    const step = vi.fn(async () => {
      nowUs += 1;
      return frameAt(nowUs, nowUs - 1);
    });
    const restore = vi.fn(async (index: number) => {
      nowUs = index * 4;
      return frameAt(nowUs, nowUs);
    });
    const seek = vi.fn(async (_events: number | undefined, timeNs: number) => {
      const from = nowUs;
      nowUs = Math.max(nowUs, Math.ceil(timeNs / 1000));
      return frameAt(nowUs, from);
    });
    const controller = createController(store, fakeEngine({ load, step, restore, seek } as never));
    await controller.load('two', '{}');
    for (let i = 0; i < 10; i++) await controller.step();
    const slices = store.get().slices;
    expect(slices?.switches).toBe(10);
    expect(slices?.sliceAt(cpuId(0), 9500)).toEqual({ start: 9000, end: 10000, pid: 1009 });
    // Back to 6 us: the snapshot at 4 us, then forward to 6.
    await controller.scrubTo(6000);
    expect(restore).toHaveBeenCalledWith(1);
    expect(load).toHaveBeenCalledTimes(1);
    expect(store.get().slices).toBe(slices);
    expect(store.get().frame?.nowNs).toBe(6000);
    expect(slices?.switches).toBe(6);
    expect(slices?.sliceAt(cpuId(0), 5500)).toEqual({ start: 5000, end: 6000, pid: 1005 });
    expect(slices?.sliceAt(cpuId(0), 9500)).toBeUndefined();
    // Back to before the first kept moment but the load's: the snapshot at 0.
    await controller.scrubTo(2000);
    expect(restore).toHaveBeenLastCalledWith(0);
    expect(slices?.switches).toBe(2);
  });

  it('shows a catch-up a few times a second, not at each of its steps, and keeps every step\'s records', async () => {
    const store = createAppStore();
    let nowUs = 0;
    const seek = vi.fn(async (_events: number | undefined, timeNs: number) => {
      const from = nowUs;
      nowUs = Math.max(nowUs, Math.ceil(timeNs / 1000));
      const switches: number[] = [];
      for (let t = from + 1; t <= nowUs; t++) switches.push(t * 1000, 0, 1000 + t);
      return { ...frame(nowUs, false, [line(nowUs)]), switches: new Float64Array(switches) };
    });
    const controller = createController(store, fakeEngine({ load: loadTwoCpus, seek } as never));
    await controller.load('two', '{}');
    const shown: number[] = [];
    let last = store.get().frame;
    store.subscribe(() => {
      const now = store.get().frame;
      if (now !== last && now) shown.push(now.nowNs);
      last = now;
    });
    await controller.seek({ timeNs: 3_000_000 as SimTimeNs, events: undefined });
    // 150 steps of 20 us, answered at once: shown once, at the end.
    expect(seek.mock.calls.length).toBeGreaterThanOrEqual(150);
    expect(shown.length).toBeLessThanOrEqual(2);
    expect(shown.at(-1)).toBe(3_000_000);
    expect(store.get().frame?.nowNs).toBe(3_000_000);
    // Nothing of the steps not shown is lost: every switch, and each step's trace line.
    expect(store.get().slices?.switches).toBe(3000);
    expect(store.get().trace.map((record) => record.index)).toEqual(seek.mock.calls.map((_, step) => Math.min(3000, (step + 1) * 20)));
    expect(store.get().catchingUp).toBeUndefined();
  });

  it('records where the kept trace ends once the trace store is full', async () => {
    const store = createAppStore();
    const step = vi.fn(async () => ({ ...frame(9), switches: new Float64Array([100, 0, 7]), traceKeptUntilNs: 5000 as SimTimeNs }));
    const controller = createController(store, fakeEngine({ load: loadTwoCpus, step }));
    await controller.load('two', '{}');
    await controller.step();
    expect(store.get().slices?.truncatedAtNs).toBe(5000);
    expect(store.get().slices?.sliceAt(cpuId(0), 4999)).toEqual({ start: 100, end: 5000, pid: 7 });
  });

  it('selects a clicked run\'s switch record and its task, as the event log does', async () => {
    const store = createAppStore();
    const switchLine: TraceLine = {
      index: 17,
      timeNs: 100 as SimTimeNs,
      cpu: 1,
      event: 'sched_switch',
      payload: 'prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=schbench next_pid=1002 next_prio=120',
      reason: '',
    };
    const switchRecord = vi.fn(async () => switchLine);
    const controller = createController(store, fakeEngine({ load: loadTwoCpus, switchRecord }));
    await controller.load('two', '{}');
    await controller.inspectSwitch(1, 100);
    expect(switchRecord).toHaveBeenCalledWith(1, 100);
    expect(store.get().selection).toEqual({ index: 17, event: 'sched_switch', timeNs: 100, pid: 1002 });
    expect(store.get().inspection.status).toBe('message');
    expect(isIdle(store.get())).toBe(true);
  });
});

describe('the frequency series of a run with the power model', () => {
  const power = {
    enabled: true,
    nominal_mhz: 3200,
    cores_per_socket: [2],
    budget_w_by_socket: [40],
    turbo_mhz_by_active_cores: [3800, 3600],
    shallow: { name: 'stop2', exit_latency_ns: 10_000, target_residency_ns: 100_000 },
    deep: { name: 'stop4', exit_latency_ns: 100_000, target_residency_ns: 10_000_000 },
  } as const;
  const cpu = { core: 0, llc: 0, node: 0, socket: 0, thread: 0 };
  /** `frame_power` for two cores and one socket: the first core active, the second deep idle. */
  const powerAt = (mhz: number, watts: number) => Float64Array.from([0, 2, mhz, watts]);
  const loadPowered = vi.fn(async () => ({
    ok: true,
    loaded: {
      machine: { name: 'm', sockets: 1, llcs: 1, cores: 2, nodes: 1, threads_per_core: 1, frequency_mhz: 3200, cpus: [cpu, { ...cpu, core: 1 }] },
      tasks: [],
      workloads: [],
      endNs: 1e9,
      shards: [],
      power,
    },
    frame: { ...frame(0), power: powerAt(3200, 10) },
  }));

  it('samples each frame’s socket MHz, and starts again when the scenario reloads', async () => {
    const store = createAppStore();
    let events = 0;
    const mhz = [3800, 3600, 3700];
    const step = vi.fn(async () => {
      events += 1;
      return { ...frame(events), power: powerAt(mhz[events - 1] ?? 0, 30) };
    });
    const controller = createController(store, fakeEngine({ load: loadPowered, step }));
    await controller.load('power', '{}');
    const first = store.get().frequency;
    expect(first?.points(0)).toEqual([[0, 3200]]);
    await controller.step();
    await controller.step();
    await controller.step();
    expect(first?.points(0)).toEqual([
      [0, 3200],
      [1000, 3800],
      [2000, 3600],
      [3000, 3700],
    ]);
    await controller.load('power', '{}');
    const second = store.get().frequency;
    expect(second).not.toBe(first);
    expect(second?.points(0)).toEqual([[0, 3200]]);
  });

  it('keeps no series when the model is off', async () => {
    const store = createAppStore();
    const controller = createController(store, fakeEngine());
    await controller.load('teaching-small', '{}');
    await controller.step();
    expect(store.get().frequency).toBeUndefined();
  });
});
