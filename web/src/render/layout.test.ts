import { describe, expect, it } from 'vitest';
import { computeLayout, GROW_MAX_HEIGHT, type Box } from './layout';
import type { Machine, MachineCpu, ShardInfo } from '../engine/protocol';
import { LANE_MIN_WIDTH } from './lanes';
import { SOCKET_POWER_HEADER } from './power';
import { cpuId, llcId } from '../base/types';

/** A machine in split numbering, as the presets build them. */
function machine(sockets: number, llcsPerSocket: number, coresPerLlc: number, threads: number): Machine {
  const nCores = sockets * llcsPerSocket * coresPerLlc;
  const cpus: MachineCpu[] = new Array(nCores * threads);
  for (let core = 0; core < nCores; core++) {
    const llc = Math.floor(core / coresPerLlc);
    const socket = Math.floor(llc / llcsPerSocket);
    for (let thread = 0; thread < threads; thread++) {
      cpus[thread * nCores + core] = { core, llc, node: socket, socket, thread };
    }
  }
  return { name: 'm', sockets, llcs: sockets * llcsPerSocket, cores: nCores, nodes: sockets, threads_per_core: threads, frequency_mhz: 2000, cpus };
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (inner: Box, outer: Box) =>
  inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;

describe('machine layout', () => {
  for (const [label, m, width] of [
    ['teaching machine', machine(1, 2, 2, 2), 800],
    ['2 sockets x 10 cores x HT', machine(2, 1, 10, 2), 900],
    ['POWER9 SMT4', machine(1, 11, 2, 4), 1000],
    ['2 x 128-core Zen4', machine(2, 16, 8, 2), 1100],
  ] as const) {
    it(`places every CPU of the ${label} once, inside its LLC and core, without overlap`, () => {
      const layout = computeLayout(m, width);
      expect(layout.cpus.map((cell) => cell.cpu)).toEqual(m.cpus.map((_, cpu) => cpu));
      for (const cell of layout.cpus) {
        const info = m.cpus[cell.cpu];
        const llc = layout.llcs.find((box) => box.id === info?.llc);
        const core = layout.cores.find((box) => box.id === info?.core);
        expect(llc && inside(cell, llc)).toBe(true);
        expect(core && inside(cell, core)).toBe(true);
      }
      const sorted = [...layout.cpus].sort((a, b) => a.y - b.y || a.x - b.x);
      for (let i = 1; i < sorted.length; i++) {
        const previous = sorted[i - 1];
        const current = sorted[i];
        if (previous && current) expect(overlaps(previous, current)).toBe(false);
      }
      for (let i = 0; i < layout.llcs.length; i++) {
        for (let j = i + 1; j < layout.llcs.length; j++) {
          expect(overlaps(layout.llcs[i] as Box, layout.llcs[j] as Box)).toBe(false);
        }
      }
    });
  }

  it('keeps SMT siblings side by side in one core box', () => {
    const m = machine(2, 1, 10, 2);
    const layout = computeLayout(m, 900);
    const zero = layout.cpus[0];
    const sibling = layout.cpus[20];
    expect(zero?.y).toBe(sibling?.y);
    expect((sibling?.x ?? 0) - (zero?.x ?? 0)).toBe((zero?.width ?? 0) + 2);
  });

  describe('on a wide panel', () => {
    it('grows a small machine\'s cells to fill the width, within a height a screen shows whole', () => {
      const m = machine(1, 2, 2, 2);
      const small = computeLayout(m, 1150, [], false, false);
      const grown = computeLayout(m, 1150);
      expect(grown.cell).toBeGreaterThan(small.cell);
      expect(grown.width).toBeLessThanOrEqual(1150);
      expect(grown.width).toBeGreaterThan(1150 * 0.75);
      expect(grown.height).toBeLessThanOrEqual(GROW_MAX_HEIGHT);
      // Every CPU still inside its core.
      for (const cell of grown.cpus) expect(grown.cores.some((core) => inside(cell, core))).toBe(true);
    });

    it('leaves a machine wider than its panel as it is, and keeps the rows of one that grows', () => {
      const wide = machine(2, 1, 10, 2);
      expect(computeLayout(wide, 250)).toEqual(computeLayout(wide, 250, [], false, false));
      const big = machine(2, 8, 8, 2);
      const rows = (cells: readonly Box[]) => new Set(cells.map((cell) => cell.y)).size;
      expect(rows(computeLayout(big, 900).cpus)).toBe(rows(computeLayout(big, 900, [], false, false).cpus));
    });
  });

  describe('for a projector (largest cells)', () => {
    it('rearranges a 72-CPU machine into more rows for larger cells, within the width and the height', () => {
      const milan = machine(1, 6, 6, 2);
      const shallow = computeLayout(milan, 1230);
      const large = computeLayout(milan, 1230, [], false, true, true);
      expect(large.cell).toBeGreaterThan(shallow.cell * 1.5);
      expect(large.width).toBeLessThanOrEqual(1230);
      expect(large.height).toBeLessThanOrEqual(GROW_MAX_HEIGHT);
      const rows = (cells: readonly Box[]) => new Set(cells.map((cell) => cell.y)).size;
      expect(rows(large.cpus)).toBeGreaterThan(rows(shallow.cpus));
      for (const cell of large.cpus) expect(large.cores.some((core) => inside(cell, core))).toBe(true);
      for (let a = 0; a < large.cpus.length; a++) {
        for (let b = a + 1; b < large.cpus.length; b++) expect(overlaps(large.cpus[a]!, large.cpus[b]!)).toBe(false);
      }
    });

    it('changes nothing for a machine that already fills its panel, nor for a few pixels more', () => {
      const wide = machine(2, 1, 10, 2);
      expect(computeLayout(wide, 250, [], false, true, true)).toEqual(computeLayout(wide, 250));
      // 40 CPUs on a 1280x720 projector: little height left below the toolbar, so more
      // rows would buy a cell barely larger; the shallow layout stays.
      expect(computeLayout(wide, 760, [], false, true, true, 283)).toEqual(computeLayout(wide, 760, [], false, true, false, 283));
    });
  });

  describe('with SHARED_RUNQ on', () => {
    /** Shards as the core makes them: `max(llc_cpus / size, 1)` per LLC, CPU `cpu % n` joins shard `n`. */
    function shardsOf(m: Machine, size: number): ShardInfo[] {
      const shards: ShardInfo[] = [];
      for (let llc = 0; llc < m.llcs; llc++) {
        const cpus = m.cpus.flatMap((info, cpu) => (info.llc === llc ? [cpu] : []));
        const n = size === 0 ? 1 : Math.max(1, Math.floor(cpus.length / size));
        for (let index = 0; index < n; index++) {
          shards.push({ llc: llcId(llc), index, cpus: cpus.filter((cpu) => cpu % n === index).map(cpuId) });
        }
      }
      return shards;
    }

    it('puts one lane per shard of an 18-core Skylake under its cores, inside its LLC, in shard order', () => {
      const m = machine(1, 1, 18, 2);
      const shards = shardsOf(m, 6);
      const plain = computeLayout(m, 800, [], false, false);
      const layout = computeLayout(m, 800, shards, false, false);
      expect(layout.lanes.map((lane) => [lane.shard, lane.llc, lane.index])).toEqual(shards.map((shard, at) => [at, shard.llc, shard.index]));
      const llc = layout.llcs[0] as Box;
      const coresBottom = Math.max(...layout.cores.map((core) => core.y + core.height));
      for (const lane of layout.lanes) {
        expect(inside(lane, llc)).toBe(true);
        expect(lane.y).toBeGreaterThan(coresBottom);
      }
      for (let i = 1; i < layout.lanes.length; i++) expect(overlaps(layout.lanes[i - 1] as Box, layout.lanes[i] as Box)).toBe(false);
      // The lanes add height, and nothing else moves.
      expect(layout.height).toBeGreaterThan(plain.height);
      expect(layout.cpus).toEqual(plain.cpus);
    });

    it('keeps every LLC wide enough for a lane, and draws none when SHARED_RUNQ is off', () => {
      const m = machine(1, 2, 2, 2);
      const layout = computeLayout(m, 800, shardsOf(m, 6));
      expect(layout.lanes).toHaveLength(2);
      for (const lane of layout.lanes) expect(lane.width).toBeGreaterThanOrEqual(LANE_MIN_WIDTH);
      for (let i = 0; i < layout.llcs.length; i++) {
        for (let j = i + 1; j < layout.llcs.length; j++) expect(overlaps(layout.llcs[i] as Box, layout.llcs[j] as Box)).toBe(false);
      }
      expect(computeLayout(m, 800, []).lanes).toEqual([]);
    });
  });

  describe('with the power model on', () => {
    it('gives each socket a header tall and wide enough for its frequency and power bar, with the LLCs below it', () => {
      for (const m of [machine(1, 11, 2, 4), machine(2, 1, 2, 1)]) {
        const plain = computeLayout(m, 1000);
        const layout = computeLayout(m, 1000, [], true);
        for (const socket of layout.sockets) {
          expect(socket.width).toBeGreaterThanOrEqual(SOCKET_POWER_HEADER.minWidth);
          for (const llc of layout.llcs) {
            if (!inside(llc, socket)) continue;
            expect(llc.y).toBeGreaterThanOrEqual(socket.y + SOCKET_POWER_HEADER.height);
          }
        }
        for (const cell of layout.cpus) expect(layout.llcs.some((llc) => inside(cell, llc))).toBe(true);
        for (let i = 0; i < layout.sockets.length; i++) {
          for (let j = i + 1; j < layout.sockets.length; j++) expect(overlaps(layout.sockets[i] as Box, layout.sockets[j] as Box)).toBe(false);
        }
        expect(layout.height).toBeGreaterThan(plain.height);
        // Each cell knows its core, for the core's idle state.
        expect(layout.cpus.map((cell) => cell.core)).toEqual(m.cpus.map((info) => info.core));
      }
    });

    it('keeps the cores in a grid where the header cannot have its width: the figures run on instead', () => {
      const m = machine(2, 1, 10, 2);
      const plain = computeLayout(m, 330, [], false, false);
      const layout = computeLayout(m, 330, [], true, false);
      const columns = (cells: readonly Box[]) => new Set(cells.map((cell) => cell.x)).size;
      expect(columns(layout.cores)).toBe(columns(plain.cores));
      expect(columns(layout.cores)).toBeGreaterThan(1);
      expect(layout.cpus.map((cell) => cell.x)).toEqual(plain.cpus.map((cell) => cell.x));
    });
  });
});
