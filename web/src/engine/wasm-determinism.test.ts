/**
 * The WebAssembly build gives the same trace as the native build: the same
 * scenario and seed hash identically under Node and in the `schedlab` binary,
 * and the bridge reports the same headline figures as `schedlab run --json`.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatProblem, schemaProblems } from './validate';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { initSync, SimHandle, check_scenario } from '../../wasm-pkg/sched_wasm.js';
import type { LockStatRow, PowerInfo, ShardInfo, TaskInfo } from './protocol';
import { parseFrameShards } from '../store/shards';
import { parseFramePower } from '../store/power';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** The native CLI, debug build (brought up to date in `beforeAll`; a no-op after `cargo test`). */
const cli = `${repo}target/debug/schedlab`;

function nativeHash(scenario: string): string {
  const stdout = execFileSync(cli, ['run', scenario, '--json'], { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(stdout) as { trace_hash: string }).trace_hash;
}

interface WorkloadThroughput {
  workload: string;
  values: { unit: string; value: number }[];
}

/** Scenario fields to change, by dotted path, as the CLI's `--set PATH=VALUE` takes them. */
type Overrides = Record<string, number>;

/** `throughput_by_workload` of `schedlab run SCENARIO --json --set ...`. */
function nativeThroughput(scenario: string, overrides: Overrides): WorkloadThroughput[] {
  const sets = Object.entries(overrides).flatMap(([path, value]) => ['--set', `${path}=${JSON.stringify(value)}`]);
  const stdout = execFileSync(cli, ['run', scenario, '--json', ...sets], { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(stdout) as { throughput_by_workload: WorkloadThroughput[] }).throughput_by_workload;
}

/** What the app shows: the bridge's `throughputs_json` after the same run in wasm. */
function wasmThroughput(scenario: string, overrides: Overrides): WorkloadThroughput[] {
  const value = JSON.parse(readFileSync(`${repo}scenarios/${scenario}.json`, 'utf8')) as Record<string, unknown>;
  for (const [path, override] of Object.entries(overrides)) {
    const keys = path.split('.');
    const last = keys.pop() ?? '';
    let node = value;
    for (const key of keys) node = node[key] as Record<string, unknown>;
    node[last] = override;
  }
  const sim = new SimHandle(JSON.stringify(value), scenario);
  sim.run_to_end();
  const figures = JSON.parse(sim.throughputs_json()) as WorkloadThroughput[];
  sim.free();
  return figures;
}

function wasmHash(scenario: string): string {
  const text = readFileSync(`${repo}scenarios/${scenario}.json`, 'utf8');
  const sim = new SimHandle(text, scenario);
  sim.run_to_end();
  const hash = sim.trace_hash();
  sim.free();
  return hash;
}

describe('determinism across native and WebAssembly', () => {
  beforeAll(() => {
    initSync({ module: readFileSync(`${repo}web/wasm-pkg/sched_wasm_bg.wasm`) });
    // The same target selection as `cargo test --workspace`, so nothing rebuilds after it.
    execFileSync('cargo', ['build', '--quiet', '--workspace', '--all-targets'], { cwd: repo, stdio: 'inherit' });
    expect(existsSync(cli)).toBe(true);
  }, 900_000);

  for (const scenario of ['teaching-small', 'sis-schbench-t19', 'turbo-bench-power9-pack']) {
    it(`${scenario}: same hash twice in wasm, and the same as native`, () => {
      const first = wasmHash(scenario);
      expect(wasmHash(scenario)).toBe(first);
      expect(first).toMatch(/^[0-9a-f]{16}$/);
      expect(nativeHash(scenario)).toBe(first);
    });
  }

  it('stream8-pinned-zen3: the same MB/s per kernel as `run --json`', () => {
    // Long enough for every kernel's ten passes (about 0.33 s).
    const overrides = { duration_ms: 400 };
    const figures = wasmThroughput('stream8-pinned-zen3', overrides);
    expect(figures).toEqual(nativeThroughput('stream8-pinned-zen3', overrides));
    const values = figures[0]?.values ?? [];
    expect(values.map((figure) => figure.unit)).toEqual(['MB/s Copy', 'MB/s Scale', 'MB/s Add', 'MB/s Triad']);
    expect(values.every((figure) => figure.value > 0)).toBe(true);
  });

  it('hackbench-7950x: the same time to finish as `run --json`, and the fallback rate before it', () => {
    // 100 loops instead of 1000 keep the debug CLI quick; it finishes in about 60 ms.
    const whole = { duration_ms: 1000, 'workloads.0.loops': 100 };
    const finished = wasmThroughput('hackbench-7950x', whole);
    expect(finished).toEqual(nativeThroughput('hackbench-7950x', whole));
    expect(finished[0]?.values).toEqual([{ unit: 's', value: expect.any(Number) as number }]);
    const cut = { duration_ms: 10, 'workloads.0.loops': 100 };
    const early = wasmThroughput('hackbench-7950x', cut);
    expect(early).toEqual(nativeThroughput('hackbench-7950x', cut));
    expect(early[0]?.values[0]?.unit).toBe('messages/s');
  });

  it('teaching-small: the same requests/s as `run --json`', () => {
    const overrides = { duration_ms: 200 };
    const figures = wasmThroughput('teaching-small', overrides);
    expect(figures).toEqual(nativeThroughput('teaching-small', overrides));
    expect(figures[0]?.values[0]?.unit).toBe('requests/s');
  });

  it('shared-runq-schbench-pipe-skylake: the same lock_stat rows as `run --json`, and shards of known tasks', () => {
    const overrides = { duration_ms: 20 };
    const value = JSON.parse(readFileSync(`${repo}scenarios/shared-runq-schbench-pipe-skylake.json`, 'utf8')) as Record<string, unknown>;
    const sim = new SimHandle(JSON.stringify({ ...value, ...overrides }), 'shared-runq-schbench-pipe-skylake');
    const shards = JSON.parse(sim.shards_json()) as ShardInfo[];
    // 36 CPUs in one LLC, shards of 6 CPUs: six shards, CPU c in shard c % 6.
    expect(shards.map((shard) => [shard.llc, shard.index])).toEqual([0, 1, 2, 3, 4, 5].map((index) => [0, index]));
    expect(shards[1]?.cpus).toEqual([1, 7, 13, 19, 25, 31]);
    sim.run_until(5e6);
    const pids = new Set((JSON.parse(sim.tasks_json()) as { tasks: { pid: number }[] }).tasks.map((task) => task.pid));
    const queued = parseFrameShards(sim.frame_shards(), shards).flatMap((queue) => queue.pids);
    expect(queued.length).toBeGreaterThan(0);
    expect(queued.every((queuedPid) => pids.has(queuedPid))).toBe(true);
    expect(new Set(queued).size).toBe(queued.length);
    sim.run_to_end();
    const rows = JSON.parse(sim.lock_stat_json()) as LockStatRow[];
    sim.free();
    const stdout = execFileSync(cli, ['run', 'shared-runq-schbench-pipe-skylake', '--json', '--set', 'duration_ms=20'], { cwd: repo, encoding: 'utf8' });
    expect(rows).toEqual((JSON.parse(stdout) as { locks: LockStatRow[] }).locks);
    expect(rows.map((row) => row.class)).toEqual(['&rq->__lock', '&shard->lock']);
    expect(rows[1]?.acquisitions).toBeGreaterThan(0);
    expect(Object.keys(rows[1]?.contention_points ?? {})).toContain('__enqueue_entity');
  });

  it("turbo-bench-power9-pack: frame_power reads as 22 cores' idle states and the socket's turbo frequency, and the jitter threads are marked", () => {
    const sim = new SimHandle(readFileSync(`${repo}scenarios/turbo-bench-power9-pack.json`, 'utf8'), 'turbo-bench-power9-pack');
    const info = JSON.parse(sim.power_json()) as PowerInfo;
    if (!info.enabled) throw new Error('the power model should run');
    expect(info.cores_per_socket).toEqual([22]);
    expect([info.shallow.name, info.deep.name]).toEqual(['stop2', 'stop4']);
    expect(info.turbo_mhz_by_active_cores).toHaveLength(22);
    const tasks = (JSON.parse(sim.tasks_json()) as { tasks: TaskInfo[] }).tasks;
    expect(tasks.filter((task) => task.jitter).map((task) => task.comm)).toEqual(Array<string>(8).fill('turbo_jitter'));
    expect(tasks.some((task) => task.comm === 'turbo_bench' && task.jitter)).toBe(false);
    for (const ms of [0, 5, 20, 50]) {
      sim.run_until(ms * 1e6);
      const power = parseFramePower(sim.frame_power(), info);
      expect(power?.cores).toHaveLength(22);
      expect(power?.sockets).toHaveLength(1);
      // The socket runs at the turbo table's entry for its cores not in deep idle (the first entry when all are).
      const awake = power?.cores.filter((state) => state !== 'deep').length ?? 0;
      expect(power?.sockets[0]?.mhz).toBe(info.turbo_mhz_by_active_cores[Math.max(1, awake) - 1]);
      expect(power?.sockets[0]?.watts).toBeGreaterThan(0);
      expect(power?.sockets[0]?.watts).toBeLessThanOrEqual(info.budget_w_by_socket[0] ?? 0);
    }
    // Packed jitter leaves most cores in deep idle, and the busy ones active.
    const settled = parseFramePower(sim.frame_power(), info);
    expect(settled?.cores.filter((state) => state === 'deep').length).toBeGreaterThan(10);
    expect(settled?.cores.filter((state) => state === 'active').length).toBeGreaterThanOrEqual(8);
    sim.free();
    const plain = new SimHandle(readFileSync(`${repo}scenarios/teaching-small.json`, 'utf8'), 'teaching-small');
    const off = JSON.parse(plain.power_json()) as PowerInfo;
    expect(off).toEqual({ enabled: false });
    expect(parseFramePower(plain.frame_power(), off)).toBeUndefined();
    plain.free();
  });

  it('stepping one event at a time advances the event count by exactly one', () => {
    const text = readFileSync(`${repo}scenarios/teaching-small.json`, 'utf8');
    const sim = new SimHandle(text, 'teaching-small');
    for (let i = 1; i <= 50; i++) {
      expect(sim.step()).toBe(true);
      expect(sim.events()).toBe(i);
    }
    sim.free();
  });

  it('words schema errors exactly as the CLI does', () => {
    const good = JSON.parse(readFileSync(`${repo}scenarios/teaching-small.json`, 'utf8')) as Record<string, unknown>;
    const workload = (good.workloads as Record<string, unknown>[])[0] ?? {};
    const bad: unknown[] = [
      { ...good, topology: { preset: 'teaching-small', llcs_per_socket: 0 } },
      { ...good, duration_ms: 'ten' },
      { ...good, workloads: [{ ...workload, kind: 'schbench2' }] },
      { ...good, workloads: [{ ...workload, worker_threads: undefined, workers: 5 }] },
      { ...good, knobs: { hz: 5 } },
    ];
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-'));
    for (const [index, value] of bad.entries()) {
      const file = join(dir, `bad-${index}.json`);
      writeFileSync(file, JSON.stringify(value));
      let stderr = '';
      try {
        execFileSync(cli, ['validate', file], { cwd: repo, encoding: 'utf8', stdio: 'pipe' });
      } catch (error) {
        stderr = String((error as { stderr?: string }).stderr ?? '');
      }
      const cliLines = stderr
        .split('\n')
        .filter((line) => line.startsWith('  '))
        .map((line) => line.trim())
        .sort();
      const browserLines = schemaProblems(JSON.parse(JSON.stringify(value))).map(formatProblem).sort();
      expect(browserLines.length).toBeGreaterThan(0);
      expect(browserLines).toEqual(cliLines);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports semantic problems with their path', () => {
    const text = readFileSync(`${repo}scenarios/teaching-small.json`, 'utf8').replace('"worker_threads": 5', '"worker_threads": 5, "cpus": "0-64"');
    expect(JSON.parse(check_scenario(text))).toEqual([
      { path: 'workloads.0.cpus', message: 'CPU 8 does not exist: the machine has CPUs 0-7' },
    ]);
  });
});
