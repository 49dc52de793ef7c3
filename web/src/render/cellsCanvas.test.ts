import { describe, expect, it } from 'vitest';
import { cellAt, cellsOnCanvas, drawCells, LIGHT_CELLS, type CellsFrame } from './cellsCanvas';
import { computeLayout } from './layout';
import { depthWidth } from './cellState';
import type { Machine, MachineCpu } from '../engine/protocol';
import type { TaskColors } from './colors';

/** 2 sockets x 4 LLCs x 8 cores x SMT2: 128 CPUs, split numbering. */
function machine(): Machine {
  const nCores = 64;
  const cpus: MachineCpu[] = new Array(nCores * 2);
  for (let core = 0; core < nCores; core++) {
    const llc = Math.floor(core / 8);
    const socket = Math.floor(llc / 4);
    for (let thread = 0; thread < 2; thread++) cpus[thread * nCores + core] = { core, llc, node: socket, socket, thread };
  }
  return { name: 'm', sockets: 2, llcs: 8, cores: nCores, nodes: 2, threads_per_core: 2, frequency_mhz: 2000, cpus };
}

/** The calls a 2D context received that the test looks at, with the state they were made in. */
interface Call {
  readonly op: 'fillRect' | 'strokeRect';
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly style: unknown;
  readonly alpha: number;
}

function recorder(): { ctx: CanvasRenderingContext2D; calls: Call[] } {
  const calls: Call[] = [];
  const state = { fillStyle: '' as unknown, strokeStyle: '' as unknown, globalAlpha: 1, lineWidth: 1, font: '', textAlign: 'left', textBaseline: 'alphabetic' };
  const ctx = {
    ...state,
    clearRect() {},
    setLineDash() {},
    fillText() {},
    fillRect(x: number, y: number, width: number, height: number) {
      calls.push({ op: 'fillRect', x, y, width, height, style: this.fillStyle, alpha: this.globalAlpha });
    },
    strokeRect(x: number, y: number, width: number, height: number) {
      calls.push({ op: 'strokeRect', x, y, width, height, style: this.strokeStyle, alpha: this.globalAlpha });
    },
    createPattern() {
      return null;
    },
  };
  return { ctx: ctx as unknown as CanvasRenderingContext2D, calls };
}

const colors: TaskColors = {
  fill: (pid) => (pid === 0 ? '#ffffff' : `#0000${String(pid % 100).padStart(2, '0')}`),
  group: () => 0,
  jitter: () => false,
};

describe('canvas cells', () => {
  it('is chosen for machines of more than 64 CPUs only', () => {
    expect(cellsOnCanvas(64)).toBe(false);
    expect(cellsOnCanvas(65)).toBe(true);
    expect(cellsOnCanvas(512)).toBe(true);
  });

  it('paints each cell in its task colour, its depth bar, and the selected task marks', () => {
    const layout = computeLayout(machine(), 1400);
    const n = layout.cpus.length;
    const running = new Uint32Array(n);
    const nrRunning = new Uint32Array(n);
    running[5] = 1005;
    nrRunning[5] = 4; // three wait behind it
    running[70] = 1070;
    nrRunning[70] = 1;
    const frame: CellsFrame = {
      layout,
      colors,
      view: { running, nrRunning },
      highlight: { allowed: new Set([5, 6]), chosen: 6 },
      coreIdle: () => undefined,
      labelsIdleCore: () => false,
      palette: LIGHT_CELLS,
    };
    const { ctx, calls } = recorder();
    const stats = drawCells(ctx, frame);
    expect(stats).toEqual({ cells: 128, running: 2, motions: 0 });
    const fillAt = (cpu: number) => {
      const cell = layout.cpus[cpu]!;
      return calls.find((call) => call.op === 'fillRect' && call.x === cell.x && call.y === cell.y && call.width === cell.width);
    };
    expect(fillAt(5)?.style).toBe(colors.fill(1005));
    expect(fillAt(70)?.style).toBe(colors.fill(1070));
    expect(fillAt(6)?.style).toBe('#ffffff');
    // Allowed cells at full strength, the others dimmed, as the SVG's classes do.
    expect(fillAt(5)?.alpha).toBe(1);
    expect(fillAt(70)?.alpha).toBe(0.35);
    // CPU 5's depth bar, under the cell, three tasks long; none under CPU 70.
    const cell5 = layout.cpus[5]!;
    const bar = calls.find((call) => call.op === 'fillRect' && call.y === cell5.y + cell5.height + 2 && call.x === cell5.x);
    expect(bar?.width).toBe(depthWidth(3, cell5.width));
    const cell70 = layout.cpus[70]!;
    expect(calls.some((call) => call.op === 'fillRect' && call.y === cell70.y + cell70.height + 2 && call.x === cell70.x)).toBe(false);
    // The chosen CPU is ringed outside its cell, the allowed ones outlined in the allowed colour.
    const cell6 = layout.cpus[6]!;
    expect(calls.some((call) => call.op === 'strokeRect' && call.x === cell6.x - 3 && call.style === LIGHT_CELLS.chosen)).toBe(true);
    expect(calls.filter((call) => call.op === 'strokeRect' && call.style === LIGHT_CELLS.allowed)).toHaveLength(2);
  });

  it('finds the cell under a point, and none between cells', () => {
    const layout = computeLayout(machine(), 1400);
    const cell = layout.cpus[77]!;
    expect(cellAt(layout, cell.x + cell.width / 2, cell.y + cell.height / 2)?.cpu).toBe(77);
    expect(cellAt(layout, 0, 0)).toBeUndefined();
  });
});
