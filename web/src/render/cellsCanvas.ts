/**
 * The CPU cells of a large machine, painted on a canvas instead of as SVG
 * elements. With hundreds of CPUs nearly every cell changes in every frame, and
 * writing the attributes of hundreds of SVG groups (then styling, laying out and
 * painting them) is most of the page's work; a canvas repaints them all in a
 * fraction of a millisecond. The canvas sits in the machine's SVG (a
 * `foreignObject` in the CPU layer), so the boxes under it and the moves, lanes
 * and power marks over it keep their order, and one drawing code path chooses the
 * renderer by the machine's size (`cellsOnCanvas`).
 *
 * It draws what the SVG cells show: the running task's colour (or the core's idle
 * state), the jitter mark, the depth bar of waiting tasks, and for a selected task
 * its allowed CPUs outlined, the others dimmed, the chosen one ringed; the CPU
 * number and pid where the cells are large enough to read them.
 */
import type { CpuCell, MachineLayout } from './layout';
import { JITTER_DASH, JITTER_STROKE, textOn, type TaskColors } from './colors';
import { DEEP_FILL, DEEP_HATCH, idleCellBase, SHALLOW_FILL } from './power';
import type { CoreIdle } from '../store/power';
import { cpuMark, depthWidth, fittedTypePx, isOffline, OFFLINE_FILL, waitingOn, type CpuHighlight, type CpuView } from './cellState';
import { paintMotions } from './motion';
import type { MotionView } from '../store/motion';

/** Above this many CPUs the cells are painted on a canvas. */
export const CANVAS_MIN_CPUS = 64;

/** Whether a machine of this many CPUs draws its cells on a canvas. */
export function cellsOnCanvas(nCpus: number): boolean {
  return nCpus > CANVAS_MIN_CPUS;
}

/** The colours the stylesheet gives the SVG cells, per theme. */
export interface CellPalette {
  /** An idle CPU's fill when no idle state is modelled (the task colours' `fill(0)` in light). */
  readonly idle: string | undefined;
  readonly cellStroke: string;
  readonly depth: string;
  readonly allowed: string;
  readonly chosen: string;
  /** A shard lane's fill with its lock quiet, and with it fully contended (the glow mixes them). */
  readonly laneQuiet: string;
  readonly laneHot: string;
}

export const LIGHT_CELLS: CellPalette = { idle: undefined, cellStroke: 'rgba(0, 0, 0, 0.15)', depth: '#d64545', allowed: '#b7791f', chosen: '#1a202c', laneQuiet: '#f8fafc', laneHot: '#fff0e0' };
export const DARK_CELLS: CellPalette = { idle: '#2c3e50', cellStroke: 'rgba(0, 0, 0, 0.35)', depth: '#e66a6a', allowed: '#d69e2e', chosen: '#f0f4f8', laneQuiet: '#1f2b37', laneHot: '#4a2e14' };

/** How far the chosen CPU's ring sits outside its cell (as on the SVG cells). */
const RING = 3;

export interface CellsFrame {
  readonly layout: MachineLayout;
  readonly colors: TaskColors;
  readonly view: CpuView;
  readonly highlight: CpuHighlight | undefined;
  /** Each core's idle state when the power model runs. */
  readonly coreIdle: (core: number) => CoreIdle | undefined;
  /** Whether an idle core's cells leave their room to its idle label (no CPU number then). */
  readonly labelsIdleCore: (cell: CpuCell) => boolean;
  readonly palette: CellPalette;
  /** The task moves to paint over the cells (a large machine's moves are on the canvas too). */
  readonly motions?: MotionView;
}

/** The hatch a deep-idle core's cells are filled with, as the SVG's pattern draws it. */
function deepPattern(ctx: CanvasRenderingContext2D): CanvasPattern | string {
  const tile = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(6, 6) : undefined;
  const tileCtx = tile?.getContext('2d');
  if (!tile || !tileCtx) return DEEP_FILL;
  tileCtx.fillStyle = DEEP_FILL;
  tileCtx.fillRect(0, 0, 6, 6);
  tileCtx.strokeStyle = DEEP_HATCH;
  tileCtx.lineWidth = 2;
  tileCtx.beginPath();
  // Diagonal stripes that tile seamlessly.
  for (const offset of [-6, 0, 6]) {
    tileCtx.moveTo(offset, 6);
    tileCtx.lineTo(offset + 6, 0);
  }
  tileCtx.stroke();
  return ctx.createPattern(tile, 'repeat') ?? DEEP_FILL;
}

/** What `drawCells` painted, for tests: cells, how many ran a task, and the moves painted. */
export interface CellsStats {
  readonly cells: number;
  readonly running: number;
  readonly motions: number;
}

/** Paints every CPU cell of `frame.layout` into `ctx`, whose transform maps the layout's units. */
export function drawCells(ctx: CanvasRenderingContext2D, frame: CellsFrame): CellsStats {
  const { layout, colors, view, highlight, palette } = frame;
  ctx.clearRect(0, 0, layout.width, layout.height);
  const showText = layout.cell >= 24;
  const pidFont = layout.cell >= 34 ? Math.round(Math.min(22, Math.max(12, layout.cell * 0.18))) : 10;
  const labelFont = layout.cell >= 34 ? Math.round(Math.min(20, Math.max(12, layout.cell * 0.16))) : 9;
  let deep: CanvasPattern | string | undefined;
  let running = 0;
  const texts: { cell: CpuCell; base: string; pid: number; alpha: number }[] = [];
  for (const cell of layout.cpus) {
    const pid = view.running[cell.cpu] ?? 0;
    const state = frame.coreIdle(cell.core);
    const mark = cpuMark(cell.cpu, highlight);
    ctx.globalAlpha = mark === 'not-allowed' ? 0.35 : 1;
    let base: string;
    if (isOffline(view, cell.cpu)) {
      base = OFFLINE_FILL;
      ctx.fillStyle = base;
    } else if (pid !== 0) {
      running += 1;
      base = colors.fill(pid);
      ctx.fillStyle = base;
    } else if (state === 'deep') {
      base = idleCellBase(state, colors.fill(0));
      deep ??= deepPattern(ctx);
      ctx.fillStyle = deep;
    } else if (state === 'shallow') {
      base = SHALLOW_FILL;
      ctx.fillStyle = base;
    } else {
      base = palette.idle ?? colors.fill(0);
      ctx.fillStyle = base;
    }
    ctx.fillRect(cell.x, cell.y, cell.width, cell.height);
    ctx.lineWidth = mark === 'allowed' ? 3 : 1;
    ctx.strokeStyle = mark === 'allowed' ? palette.allowed : palette.cellStroke;
    ctx.strokeRect(cell.x + 0.5, cell.y + 0.5, cell.width - 1, cell.height - 1);
    if (pid !== 0 && colors.jitter(pid) && cell.width > 6) {
      ctx.strokeStyle = JITTER_STROKE;
      ctx.lineWidth = 2;
      ctx.setLineDash(JITTER_DASH.split(' ').map(Number));
      ctx.strokeRect(cell.x + 1.5, cell.y + 1.5, cell.width - 3, cell.height - 3);
      ctx.setLineDash([]);
    }
    const waiting = waitingOn(view, cell.cpu);
    if (waiting > 0) {
      ctx.fillStyle = palette.depth;
      ctx.fillRect(cell.x, cell.y + cell.height + 2, depthWidth(waiting, cell.width), 4);
    }
    if (highlight?.chosen === cell.cpu) {
      ctx.globalAlpha = 1;
      ctx.strokeStyle = palette.chosen;
      ctx.lineWidth = 3;
      ctx.strokeRect(cell.x - RING, cell.y - RING, cell.width + 2 * RING, cell.height + 2 * RING);
    }
    if (showText) texts.push({ cell, base, pid, alpha: ctx.globalAlpha });
  }
  ctx.globalAlpha = 1;
  const motions = frame.motions ? paintMotions(ctx, layout, frame.motions) : 0;
  // The numbers and pids after the moves' arcs, as the SVG draws them: over the arcs,
  // each with a halo in its cell's colour.
  ctx.lineJoin = 'round';
  ctx.lineWidth = 3;
  for (const { cell, base, pid, alpha } of texts) {
    ctx.globalAlpha = alpha;
    ctx.fillStyle = textOn(base);
    ctx.strokeStyle = base;
    if (!frame.labelsIdleCore(cell)) {
      ctx.globalAlpha *= 0.75;
      ctx.font = `${labelFont}px system-ui, sans-serif`;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'alphabetic';
      ctx.strokeText(String(cell.cpu), cell.x + 3, cell.y + labelFont + 1);
      ctx.fillText(String(cell.cpu), cell.x + 3, cell.y + labelFont + 1);
      ctx.globalAlpha /= 0.75;
    }
    // Smaller type in a narrow cell, so two cells' pids never read as one number.
    const size = pid !== 0 ? fittedTypePx(String(pid).length, pidFont, cell.width) : 0;
    if (size > 0) {
      ctx.font = `${size}px system-ui, sans-serif`;
      ctx.textAlign = 'center';
      ctx.strokeText(String(pid), cell.x + cell.width / 2, cell.y + cell.height - 5);
      ctx.fillText(String(pid), cell.x + cell.width / 2, cell.y + cell.height - 5);
    }
  }
  ctx.globalAlpha = 1;
  return { cells: layout.cpus.length, running, motions };
}

/** The cell under a point of the layout, if any (the canvas has no elements to click). */
export function cellAt(layout: MachineLayout, x: number, y: number): CpuCell | undefined {
  return layout.cpus.find((cell) => x >= cell.x && x <= cell.x + cell.width && y >= cell.y && y <= cell.y + cell.height);
}
