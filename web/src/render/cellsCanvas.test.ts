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
  readonly op: 'fillRect' | 'strokeRect' | 'stroke' | 'fillText' | 'strokeText';
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
    beginPath() {},
    moveTo() {},
    quadraticCurveTo() {},
    arc() {},
    fill() {},
    stroke() {
      calls.push({ op: 'stroke', x: 0, y: 0, width: 0, height: 0, style: this.strokeStyle, alpha: this.globalAlpha });
    },
    fillText(text: string, x: number, y: number) {
      calls.push({ op: 'fillText', x, y, width: 0, height: 0, style: text, alpha: this.globalAlpha });
    },
    strokeText(text: string, x: number, y: number) {
      calls.push({ op: 'strokeText', x, y, width: 0, height: 0, style: this.strokeStyle, alpha: this.globalAlpha });
    },
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

  it('writes the numbers and pids after the moves\' arcs, each over a halo in its cell\'s colour', () => {
    // Wide enough for text in the cells.
    const layout = computeLayout(machine(), 4000);
    expect(layout.cell).toBeGreaterThanOrEqual(24);
    const n = layout.cpus.length;
    const running = new Uint32Array(n);
    running[3] = 1003;
    const frame: CellsFrame = {
      layout,
      colors,
      view: { running, nrRunning: new Uint32Array(n) },
      highlight: undefined,
      coreIdle: () => undefined,
      labelsIdleCore: () => false,
      palette: LIGHT_CELLS,
      motions: { drawn: [{ atNs: 0, pid: 1003, from: 2, to: 3, cause: 'wakeup', distance: 'smt', age: 0.5 }], more: { smt: 0, llc: 0, 'cross-llc': 0, 'cross-numa': 0 }, moreTotal: 0, truncated: false },
    };
    const { ctx, calls } = recorder();
    expect(drawCells(ctx, frame).motions).toBe(1);
    const lastArc = calls.map((call) => call.op).lastIndexOf('stroke');
    const pid = calls.findIndex((call) => call.op === 'fillText' && call.style === '1003');
    const firstNumber = calls.findIndex((call) => call.op === 'fillText');
    expect(lastArc).toBeGreaterThan(-1);
    expect(firstNumber).toBeGreaterThan(lastArc);
    expect(pid).toBeGreaterThan(lastArc);
    expect(calls[pid - 1]).toMatchObject({ op: 'strokeText', style: colors.fill(1003) });
  });

  it('finds the cell under a point, and none between cells', () => {
    const layout = computeLayout(machine(), 1400);
    const cell = layout.cpus[77]!;
    expect(cellAt(layout, cell.x + cell.width / 2, cell.y + cell.height / 2)?.cpu).toBe(77);
    expect(cellAt(layout, 0, 0)).toBeUndefined();
  });
});
