/** A frame for store tests: two idle CPUs, nothing traced, the fields given on top. */
import type { Frame, LoadedScenario } from '../engine/protocol';
import type { SimTimeNs } from '../base/types';

export function testFrame(fields: Partial<Frame> & { readonly events: number; readonly nowNs: SimTimeNs }): Frame {
  return {
    finished: false,
    running: new Uint32Array(2),
    nrRunning: new Uint32Array(2),
    offline: new Uint32Array(0),
    queues: new Uint32Array(0),
    busyNs: new Float64Array(2),
    latency: new Float64Array(10),
    latencyHistogram: new Float64Array(0),
    counters: new Float64Array(14),
    throughput: [],
    shards: new Uint32Array(0),
    shardLocks: new Float64Array(0),
    shardSpinners: new Uint32Array(0),
    power: new Float64Array(0),
    cgroups: new Uint32Array(0),
    locks: [],
    newTrace: [],
    traceTotal: 0,
    wasmBytes: 0,
    switches: new Float64Array(0),
    migrations: new Float64Array(0),
    waits: new Float64Array(0),
    traceKeptUntilNs: undefined,
    behind: false,
    ...fields,
  };
}

/** A loaded scenario for store tests: a one-core SMT2 machine (no CPUs listed unless given), nothing else, the fields given on top. */
export function testLoaded(fields: Partial<LoadedScenario> = {}): LoadedScenario {
  return {
    machine: { name: 'm', sockets: 1, llcs: 1, cores: 1, nodes: 1, threads_per_core: 2, frequency_mhz: 2000, cpus: [] },
    tasks: [],
    workloads: [],
    endNs: 1e9,
    shards: [],
    power: { enabled: false },
    cgroups: [],
    ...fields,
  } as LoadedScenario;
}
