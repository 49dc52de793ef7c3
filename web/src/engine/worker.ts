/// <reference lib="webworker" />
/**
 * The engine worker: owns the wasm simulator so the page never blocks. Exposed
 * with Comlink; every frame's arrays are transferred, not copied through JSON.
 */
import * as Comlink from 'comlink';
import init, { check_scenario, last_panic, LogHandle, LogReader, SimHandle, struct_layout_json } from '../../wasm-pkg/sched_wasm.js';
import wasmUrl from '../../wasm-pkg/sched_wasm_bg.wasm?url';
import type {
  Decision,
  ExplainResult,
  Frame,
  LoadResult,
  LoadedScenario,
  LogOpenResult,
  LogProgress,
  LogReading,
  LayoutReport,
  LayoutResult,
  LockStatRow,
  LogFilter,
  Machine,
  PowerInfo,
  ScenarioProblem,
  ShardInfo,
  TaskInfo,
  TraceLine,
  WorkloadInfo,
  WorkloadThroughput,
} from './protocol';
import { cgroupsOf, parseTraceLines, QUEUE_CPUS, QUEUE_MAX } from './protocol';
import { slices } from './logSlices';
import { parseScenarioText, schemaProblems } from './validate';
import type { SimTimeNs } from '../base/types';
import { formatBytes } from '../base/format';
import { isGzip, type ReplayResult } from '../store/replay';
import { guardEngine, rethrowTrap } from './failure';

/**
 * What plays: a simulation, or a real machine's log played event by event. Both
 * answer the same calls (the log's `explain` always throws: a log has no decisions).
 */
type Source = SimHandle | LogHandle;

const MAX_TRACE_PER_FRAME = 200;
/** Events one Step handles at most while no trace record comes. */
const STEP_MAX_EVENTS = 100_000;
/** Events between two looks at the clock while advancing (a few hundred microseconds of work). */
const ADVANCE_CHUNK_EVENTS = 2_000;

let ready: Promise<{ memory: WebAssembly.Memory }> | undefined;
let handle: Source | undefined;
/** Bumped by every `openLog` and `cancelLog`: a read that sees another value stops. */
let logGeneration = 0;
/** Progress is posted at most this often while a log is read. */
const PROGRESS_EVERY_MS = 100;
/** A plain log is read in slices of this many bytes (larger slices read faster)... */
const READ_SLICE_BYTES = 16 << 20;
/** ...and given to the parser in pieces of this many (progress between them; a cancel is seen between slices). */
const FEED_BYTES = 4 << 20;
let traceCursor = 0;
/** The trace record from which the next frame reads context switches (all of them, uncapped). */
let switchCursor = 0;
/** The trace record from which the next frame reads task moves. */
let migrationCursor = 0;
/** The wait-log entry from which the next frame reads changes of the waiting counts. */
let waitCursor = 0;
/** The previous frame's time: each frame names the CPUs that spun on a shard lock since. */
let spinnersSinceNs = 0;
/** When the core's trace store is full (`trace_full()`): the time of its last kept record. */
let keptUntilNs: SimTimeNs | undefined;
/** The run has cgroups: each frame carries their throttled cfs_rqs and runnable tasks. */
let hasCgroups = false;

/** A snapshot the core keeps (`SimHandle::snapshot`): its index, time and events handled. */
interface SnapshotInfo {
  readonly index: number;
  readonly timeNs: number;
  readonly events: number;
}
/** This run's snapshots, oldest first: going back restores one and runs forward from there. */
let snapshots: SnapshotInfo[] = [];
/** A snapshot at least every this many events, and every 128th of the run's time. */
const SNAPSHOT_EVENTS = 200_000;
const SNAPSHOT_RUN_SHARE = 128;
/**
 * Past this many, every other snapshot is forgotten (the first kept): spacing
 * doubles and memory stays bounded. A snapshot holds about 6 KB a CPU (3 MB at
 * 512 CPUs, `tests/allocations.rs`), so large machines keep fewer: about 150 MB.
 */
function maxSnapshots(nCpus: number): number {
  return Math.max(32, Math.min(192, Math.floor(24_576 / Math.max(1, nCpus))));
}
/** How many times the snapshots were thinned (each doubles their spacing). */
let thinned = 0;

/** Takes a snapshot when the run has gone far enough since the last one; its index, if taken. */
function maybeSnapshot(sim: Source): number | undefined {
  const timeNs = sim.now_ns();
  const events = sim.events();
  const last = snapshots[snapshots.length - 1];
  if (last) {
    if (timeNs <= last.timeNs) return undefined;
    const spacing = 2 ** Math.max(0, thinned);
    const farInTime = timeNs - last.timeNs >= (spacing * sim.end_ns()) / SNAPSHOT_RUN_SHARE;
    const farInEvents = events - last.events >= spacing * SNAPSHOT_EVENTS;
    if (!farInTime && !farInEvents) return undefined;
  }
  const index = sim.snapshot();
  snapshots.push({ index, timeNs, events });
  if (snapshots.length > maxSnapshots(sim.n_cpus())) {
    snapshots = snapshots.filter((snapshot, position) => {
      const keep = position % 2 === 0;
      if (!keep) sim.forget(snapshot.index);
      return keep;
    });
    thinned += 1;
  }
  return index;
}

/** Makes `next` what plays: the old one is freed, the cursors start again. */
function swapIn(next: Source): LoadedScenario {
  handle?.free();
  handle = next;
  traceCursor = 0;
  switchCursor = 0;
  migrationCursor = 0;
  waitCursor = 0;
  spinnersSinceNs = 0;
  keptUntilNs = undefined;
  snapshots = [];
  thinned = 0;
  const cgroups = next instanceof SimHandle ? cgroupsOf(next.cgroups_json()) : [];
  hasCgroups = cgroups.length > 0;
  const taskList = JSON.parse(next.tasks_json()) as { tasks: TaskInfo[]; workloads: WorkloadInfo[] };
  return {
    machine: JSON.parse(next.topology_json()) as Machine,
    tasks: taskList.tasks,
    workloads: taskList.workloads,
    endNs: next.end_ns() as SimTimeNs,
    shards: JSON.parse(next.shards_json()) as ShardInfo[],
    power: JSON.parse(next.power_json()) as PowerInfo,
    cgroups,
  };
}

/** The engine's wasm memory, once loaded: its size is reported with each frame. */
let memory: WebAssembly.Memory | undefined;

function ensureWasm(): Promise<{ memory: WebAssembly.Memory }> {
  ready ??= init({ module_or_path: wasmUrl }).then((exports) => {
    memory = exports.memory;
    return exports;
  });
  return ready;
}

function frameOf(sim: Source): Frame {
  const running = sim.frame_running();
  const traceTotal = sim.trace_len();
  const from = Math.max(traceCursor, traceTotal - MAX_TRACE_PER_FRAME);
  const newTrace = parseTraceLines(sim.trace_lines(from, traceTotal - from), from);
  traceCursor = traceTotal;
  const switches = sim.switches(switchCursor, traceTotal);
  switchCursor = traceTotal;
  const migrations = sim.migrations(migrationCursor, traceTotal);
  migrationCursor = traceTotal;
  const waitTotal = sim.waits_len();
  const waits = sim.waits(waitCursor, waitTotal);
  waitCursor = waitTotal;
  // The page keeps its own copy (the timeline's wait lanes): the core need not.
  sim.forget_waits_before(waitCursor);
  if (keptUntilNs === undefined && traceTotal > 0 && sim.trace_full()) {
    keptUntilNs = parseTraceLines(sim.trace_lines(traceTotal - 1, 1), traceTotal - 1)[0]?.timeNs;
  }
  const snapshot = maybeSnapshot(sim);
  const nowNs = sim.now_ns();
  // A restore goes back in time: then the waiters are those since the restored moment.
  const shardSpinners = sim.frame_shard_spinners(Math.min(spinnersSinceNs, nowNs));
  spinnersSinceNs = nowNs;
  return {
    snapshot,
    nowNs: sim.now_ns() as SimTimeNs,
    events: sim.events(),
    finished: sim.finished(),
    running,
    nrRunning: sim.frame_nr_running(),
    offline: sim instanceof SimHandle ? sim.frame_offline() : new Uint32Array(0),
    queues: sim.n_cpus() <= QUEUE_CPUS ? sim.frame_queues(QUEUE_MAX) : new Uint32Array(0),
    busyNs: sim.frame_busy_ns(),
    latency: sim.latency(),
    latencyHistogram: sim.latency_histogram(),
    counters: sim.counters(),
    throughput: JSON.parse(sim.throughputs_json()) as WorkloadThroughput[],
    shards: sim.frame_shards(),
    shardLocks: sim.frame_shard_locks(),
    shardSpinners,
    power: sim.frame_power(),
    cgroups: hasCgroups && sim instanceof SimHandle ? sim.frame_cgroups() : new Uint32Array(0),
    locks: JSON.parse(sim.lock_stat_json()) as LockStatRow[],
    newTrace,
    traceTotal,
    wasmBytes: memory?.buffer.byteLength ?? 0,
    switches,
    migrations,
    waits,
    traceKeptUntilNs: keptUntilNs,
    behind: false,
  };
}

function transferFrame(frame: Frame): Frame {
  return Comlink.transfer(frame, transferList(frame));
}

function transferList(frame: Frame): Transferable[] {
  return [
    frame.running.buffer,
    frame.nrRunning.buffer,
    frame.offline.buffer,
    frame.queues.buffer,
    frame.busyNs.buffer,
    frame.latency.buffer,
    frame.latencyHistogram.buffer,
    frame.counters.buffer,
    frame.shards.buffer,
    frame.shardLocks.buffer,
    frame.shardSpinners.buffer,
    frame.power.buffer,
    frame.cgroups.buffer,
    frame.switches.buffer,
    frame.migrations.buffer,
    frame.waits.buffer,
  ] as Transferable[];
}

function current(): Source {
  if (!handle) throw new Error('no scenario is loaded');
  return handle;
}

const engine = {
  async load(text: string, name: string): Promise<LoadResult> {
    const parsed = parseScenarioText(text);
    if ('problems' in parsed) return { ok: false, problems: parsed.problems };
    const problems = schemaProblems(parsed.value, text);
    if (problems.length > 0) return { ok: false, problems };
    await ensureWasm();
    let next: SimHandle;
    try {
      next = new SimHandle(text, name);
    } catch (error) {
      rethrowTrap(error);
      const message = typeof error === 'string' ? error : String(error);
      let list: ScenarioProblem[];
      try {
        list = JSON.parse(message) as ScenarioProblem[];
      } catch {
        list = [{ path: '', message }];
      }
      return { ok: false, problems: list };
    }
    const loaded = swapIn(next);
    return Comlink.transfer({ ok: true, loaded, frame: frameOf(next) }, []);
  },

  /**
   * Reads a log from `file` (a dropped or chosen file, or pasted text as a Blob)
   * in chunks as it streams in, gzip decompressed on the way (the browser's own
   * DecompressionStream), so a large log is never held as text; posts `progress`
   * as it goes. Then the log plays in place of the loaded run. `cancelLog` stops
   * the read; on any failure the loaded run stays.
   */
  async openLog(file: Blob, preset: string, name: string, progress?: (progress: LogProgress) => void): Promise<LogOpenResult> {
    const generation = ++logGeneration;
    const started = performance.now();
    const wasm = await ensureWasm();
    const total = file.size;
    let read = 0;
    const gzip = isGzip(new Uint8Array(await file.slice(0, 2).arrayBuffer()));
    const reader = new LogReader();
    let lastPost = 0;
    let parseMs = 0;
    const fed = (chunk: Uint8Array) => {
      const before = performance.now();
      reader.feed(chunk);
      const now = performance.now();
      parseMs += now - before;
      if (progress && now - lastPost >= PROGRESS_EVERY_MS) {
        lastPost = now;
        progress({ read, total });
      }
    };
    const cancelled = (): LogOpenResult => {
      reader.free();
      return { ok: false, cancelled: true };
    };
    try {
      if (!gzip) {
        // Plain text: large slices of the file (a stream's 64 KiB chunks cost a turn
        // each), read on another thread while this one parses.
        const source = slices(file, READ_SLICE_BYTES);
        try {
          for (let slice = await source.next(); slice; slice = await source.next()) {
            if (generation !== logGeneration) return cancelled();
            for (let at = 0; at < slice.byteLength; at += FEED_BYTES) {
              const piece = slice.subarray(at, at + FEED_BYTES);
              read += piece.byteLength;
              fed(piece);
            }
          }
        } finally {
          source.stop();
        }
        if (generation !== logGeneration) return cancelled();
      } else {
        const counted = file.stream().pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              read += chunk.byteLength;
              controller.enqueue(chunk);
            },
          }),
        );
        const chunks = counted.pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>).getReader();
        for (;;) {
          const { done, value } = await chunks.read();
          if (generation !== logGeneration) {
            await chunks.cancel();
            return cancelled();
          }
          if (done) break;
          fed(value);
        }
      }
    } catch (error) {
      rethrowTrap(error);
      // The text the parser was given (after decompression), before the reader goes.
      const text = reader.bytes();
      reader.free();
      // The browser's message is a sentence (`Compressed input was truncated.`): set in brackets, without its stop.
      const why = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
      if (!gzip) return { ok: false, message: `${name} could not be read: ${why}` };
      // Nothing is played from a broken archive: say whether anything came out of it at all.
      const before = text === 0 ? 'nothing could be read from it' : `the ${formatBytes(text)} of text before the break were not played either`;
      return { ok: false, message: `${name} is not a whole gzip file (${why}); ${before}` };
    }
    progress?.({ read: total, total });
    const readMs = performance.now() - started;
    const textBytes = reader.bytes();
    let next: LogHandle;
    try {
      next = new LogHandle(reader, preset, name);
    } catch (error) {
      rethrowTrap(error);
      return { ok: false, message: typeof error === 'string' ? error : String(error) };
    }
    const replay = JSON.parse(next.replay_json()) as ReplayResult;
    const loaded = { ...swapIn(next), log: { name } };
    const frame = frameOf(next);
    const reading: LogReading = { bytes: textBytes, readMs, parseMs, totalMs: performance.now() - started, wasmBytes: wasm.memory.buffer.byteLength };
    return Comlink.transfer({ ok: true, loaded, frame, replay, reading }, []);
  },

  /**
   * The playing log's what-if scenario as indented JSON text (made on demand: it
   * holds a step for every run and wakeup of the log); undefined when what plays is
   * not a log.
   */
  logWhatIf(): string | undefined {
    return handle instanceof LogHandle ? handle.what_if_json() : undefined;
  },

  /** Stops a log being read by `openLog` (it answers `cancelled`). */
  cancelLog(): void {
    logGeneration += 1;
  },

  /**
   * Advances simulated time by `deltaNs`, for at most `budgetMs` of wall time: the
   * events run in small chunks until the target or the budget is reached, so a
   * large scenario still answers every animation frame (its clock then moves
   * slower than the chosen speed, and the frame says so).
   */
  advance(deltaNs: number, budgetMs: number): Frame {
    const sim = current();
    const target = sim.now_ns() + deltaNs;
    const started = performance.now();
    let reached = false;
    while (!reached && performance.now() - started < budgetMs) {
      reached = sim.run_until_bounded(target, ADVANCE_CHUNK_EVENTS);
    }
    return transferFrame({ ...frameOf(sim), behind: !reached });
  },

  /**
   * Runs on towards a playhead, handling at most `maxEvents` events: first until
   * `events` events have been handled (when given), then until `timeNs`. The caller
   * repeats until the frame is there, so the page stays live on a long way.
   */
  seek(events: number | undefined, timeNs: number, maxEvents: number): Frame {
    const sim = current();
    const handled = sim.events();
    if (events !== undefined && handled < events) sim.run_events(Math.min(maxEvents, events - handled));
    else if (sim.now_ns() < timeNs) sim.run_until_bounded(timeNs, maxEvents);
    return transferFrame(frameOf(sim));
  },

  /**
   * Goes back to snapshot `index` of this run, taken at or before the state now,
   * and forgets the later ones (new ones are taken as the run goes on again): the
   * frame there, its trace lines the newest records kept up to it. Undefined when
   * there is no such snapshot.
   */
  restore(index: number): Frame | undefined {
    const sim = current();
    const position = snapshots.findIndex((snapshot) => snapshot.index === index);
    if (position < 0 || !sim.restore(index)) return undefined;
    for (const later of snapshots.slice(position + 1)) sim.forget(later.index);
    snapshots = snapshots.slice(0, position + 1);
    const kept = sim.trace_len();
    traceCursor = Math.max(0, kept - MAX_TRACE_PER_FRAME);
    switchCursor = kept;
    migrationCursor = kept;
    waitCursor = sim.waits_len();
    if (!sim.trace_full()) keptUntilNs = undefined;
    return transferFrame(frameOf(sim));
  },

  /**
   * The event log's search: up to `count` records before record `before` (newest
   * first) matching the filter, looking at most `maxScan` records.
   */
  searchTrace(filter: LogFilter, before: number, count: number, maxScan: number): TraceLine[] {
    const sim = current();
    const text = sim.trace_search(before, count, filter.event, filter.cpu ?? -1, BigInt(filter.pid ?? -1), maxScan);
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [index = '0', ...rest] = line.split('|');
        return parseTraceLines(rest.join('|'), Number(index))[0]!;
      });
  },

  /** Trace records stored so far. */
  traceLen(): number {
    return current().trace_len();
  },

  /**
   * Records `[from, to)` as the kernel's `trace` file (the header when `from` is 0),
   * with the model's reasons as `# ...` comments when `reasons` is set.
   */
  ftraceText(from: number, to: number, reasons: boolean): string {
    return current().ftrace_text(from, to, reasons);
  },

  /**
   * Runs on to the next decision of a kind (0 wakeup placement, 1 task move, 2
   * balancer pull), handling at most `maxEvents` events: the frame, and the
   * decision's trace record when it came.
   */
  runToNext(kind: number, maxEvents: number): { frame: Frame; record: TraceLine | undefined } {
    const sim = current();
    const index = sim.run_to_next(kind, maxEvents);
    const record = index >= 0 ? parseTraceLines(sim.trace_lines(index, 1), index)[0] : undefined;
    const frame = frameOf(sim);
    return Comlink.transfer({ frame, record }, transferList(frame));
  },

  /**
   * Handles events until one adds a trace record (a visible change: a tick or a
   * timer that changes nothing adds none), at most `STEP_MAX_EVENTS`, or until the
   * run ends.
   */
  step(): Frame {
    const sim = current();
    const before = sim.trace_total();
    for (let handled = 0; handled < STEP_MAX_EVENTS; handled++) {
      if (!sim.step() || sim.trace_total() !== before) break;
    }
    return transferFrame(frameOf(sim));
  },

  /**
   * The `sched_switch` record with which `cpu` switched at `timeNs` (a timeline
   * slice's start), found by binary search on the trace's time column; undefined
   * when it is not in the kept trace.
   */
  switchRecord(cpu: number, timeNs: number): TraceLine | undefined {
    const sim = current();
    const total = sim.trace_len();
    const timeAt = (index: number) => parseTraceLines(sim.trace_lines(index, 1), index)[0]?.timeNs ?? Infinity;
    let lo = 0;
    let hi = total;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (timeAt(mid) < timeNs) lo = mid + 1;
      else hi = mid;
    }
    // Records at the same instant, a few at a time until the time moves on; the
    // last switch there is the one the slice starts with (earlier ones lasted no time).
    let found: TraceLine | undefined;
    for (let from = lo; from < total; from += 64) {
      const lines = parseTraceLines(sim.trace_lines(from, 64), from);
      for (const line of lines) {
        if (line.timeNs > timeNs) return found;
        if (line.event === 'sched_switch' && line.cpu === cpu) found = line;
      }
      if (lines.length === 0) break;
    }
    return found;
  },

  /** The kept trace as Chrome trace-event JSON (`schedlab run --trace-format perfetto-json`). */
  perfettoJson(): string {
    return current().perfetto_json();
  },

  summaryJson(): string {
    return current().summary_json();
  },

  /**
   * The problems the core finds in scenario text beyond its schema, as Apply
   * would report them (a kernel version out of range, CPU lists, programs: the
   * wasm build leaves the schema to the page's own validator); empty when the
   * scenario would load.
   */
  async checkScenario(text: string): Promise<ScenarioProblem[]> {
    await ensureWasm();
    return JSON.parse(check_scenario(text)) as ScenarioProblem[];
  },

  /**
   * The struct-layout lab's data for a `policy.struct_layout` value given as JSON
   * text (empty for the original layout), or the core's reason it is not a valid
   * layout (a field missing, unknown or listed twice).
   */
  async structLayout(specText: string): Promise<LayoutResult> {
    await ensureWasm();
    try {
      return { ok: true, report: JSON.parse(struct_layout_json(specText)) as LayoutReport };
    } catch (error) {
      rethrowTrap(error);
      return { ok: false, message: typeof error === 'string' ? error : error instanceof Error ? error.message : String(error) };
    }
  },

  /**
   * Explains the wakeup or fork behind trace record `index`: the core re-runs the
   * loaded scenario from the start with its recorder armed (on demand only, never
   * per frame).
   */
  explain(index: number): ExplainResult {
    const sim = current();
    try {
      return { ok: true, decision: JSON.parse(sim.explain(index)) as Decision };
    } catch (error) {
      rethrowTrap(error);
      return { ok: false, message: typeof error === 'string' ? error : String(error) };
    }
  },
};

export type Engine = typeof engine;

// A trap of the wasm module reaches the page as an EngineFailure with the core's panic message.
Comlink.expose(guardEngine(engine, () => last_panic()));
