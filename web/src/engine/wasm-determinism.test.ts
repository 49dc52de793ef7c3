/**
 * The WebAssembly build gives the same trace as the native build: the same
 * scenario and seed hash identically under Node and in the `schedlab` binary.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatProblem, schemaProblems } from './validate';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { initSync, SimHandle, check_scenario } from '../../wasm-pkg/sched_wasm.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** The native CLI, debug build (brought up to date in `beforeAll`; a no-op after `cargo test`). */
const cli = `${repo}target/debug/schedlab`;

function nativeHash(scenario: string): string {
  const stdout = execFileSync(cli, ['run', scenario, '--json'], { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return (JSON.parse(stdout) as { trace_hash: string }).trace_hash;
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

  for (const scenario of ['teaching-small', 'sis-schbench-t19']) {
    it(`${scenario}: same hash twice in wasm, and the same as native`, () => {
      const first = wasmHash(scenario);
      expect(wasmHash(scenario)).toBe(first);
      expect(first).toMatch(/^[0-9a-f]{16}$/);
      expect(nativeHash(scenario)).toBe(first);
    });
  }

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
  });

  it('reports semantic problems with their path', () => {
    const text = readFileSync(`${repo}scenarios/teaching-small.json`, 'utf8').replace('"worker_threads": 5', '"worker_threads": 5, "cpus": "0-64"');
    expect(JSON.parse(check_scenario(text))).toEqual([
      { path: 'workloads.0.cpus', message: 'CPU 8 does not exist: the machine has CPUs 0-7' },
    ]);
  });
});
