/**
 * Draws the machine into an SVG with D3 data joins: socket, LLC and core boxes,
 * one cell per CPU filled with its running task's colour, and beneath each cell a
 * strip showing how many tasks wait in that CPU's runqueue. When a task is
 * selected, the CPUs it may use are outlined, the others dimmed, and the CPU its
 * explained decision chose is ringed. With SHARED_RUNQ on, each LLC's shards are
 * lanes under its cores holding the queued tasks, head first, glowing by how
 * contended the shards' lock is. With the power model on, each socket's header
 * shows its frequency and power against its budget, and idle cores their idle
 * state (`render/power.ts`). A jitter task (TurboSched) is outlined dashed.
 */
import { glowOf } from '../store/shards';
import { setAttrs } from './d3set';
import { interpolateRgb, select, type Selection } from 'd3';
import type { CpuCell, LaneBox, LabelledBox, MachineLayout } from './layout';
import { JITTER_DASH, JITTER_STROKE, textOn, type TaskColors } from './colors';
import { coreIdleText, drawCoreIdle, drawSocketPower, ensureDeepPattern, idleCellBase, idleCellFill, SOCKET_POWER_HEADER, type PowerView } from './power';
import { idleLabel } from '../store/power';
import { chipX, fitLane, LANE, type LaneFit } from './lanes';
import type { Pid } from '../base/types';
import type { MotionView } from '../store/motion';
import { hidpiContext } from './hidpi';
import { cpuMark, depthWidth, fittedTypePx, isOffline, OFFLINE_FILL, waitingOn, type CpuHighlight, type CpuView } from './cellState';
import { cellAt, cellsOnCanvas, drawCells, LIGHT_CELLS, type CellPalette, type CellsFrame } from './cellsCanvas';

/** A shard as a lane shows it: its CPUs and its queue, head (oldest) first. */
export interface ShardLaneView {
  /** The CPUs that push into it, as the kernel lists them: `0,6,12`. */
  readonly cpus: string;
  readonly pids: readonly Pid[];
}

/** Every shard's lane content, in layout order (`LaneBox.shard`), and each lock's glow. */
export interface ShardView {
  readonly lanes: readonly ShardLaneView[];
  /** Per shard, the share of its lock's acquisitions that waited lately (0 to 1). */
  readonly contentions: readonly number[];
  /** What the tooltip says about the lock: `1.2 % of &shard->lock acquisitions waited lately`. */
  readonly lockNote: string;
  /** Per shard: the CPUs that spun on its lock since the previous frame (its waiters), newest first. */
  readonly spinners?: readonly (readonly number[])[];
}


export { cpuMark, depthWidth, DEPTH_FULL, waitingOn, type CpuHighlight, type CpuMark, type CpuView } from './cellState';

/** Each CPU's queued pids from `Frame.queues` (`[n, pid, ...]` per CPU). */
export function parseQueues(flat: Uint32Array | undefined, nCpus: number): readonly (readonly number[])[] {
  const queues: number[][] = [];
  let at = 0;
  for (let cpu = 0; cpu < nCpus && flat && at < flat.length; cpu++) {
    const count = flat[at] ?? 0;
    queues.push(Array.from(flat.subarray(at + 1, at + 1 + count)));
    at += 1 + count;
  }
  return queues;
}

/** A queued task's chip on a CPU cell: its side and the gap between chips. */
const CHIP = 12;
const CHIP_GAP = 3;
/** The room the CPU's number takes at its cell's top left, kept clear of chips and "+N". */
const CPU_LABEL_ROOM = 22;

/** About how wide "+N" is drawn (12 px bold with its outline): 7.5 px a character. */
export function moreWidth(count: number): number {
  return 3 + 7.5 * (String(count).length + 1);
}





/** How far the chosen CPU's ring sits outside its cell. */
const RING = 3;

/** What each CPU cell was last drawn with (its signature), so an unchanged cell is not written again. */
const drawnSignature = new WeakMap<SVGGElement, string>();
/** Per drawing, the layout and power flag its boxes were last joined for. */
const drawnBoxes = new WeakMap<SVGSVGElement, string>();
/** A number per layout object, for the signatures (a new layout redraws every cell). */
const layoutIds = new WeakMap<MachineLayout, number>();
let nextLayoutId = 1;
function layoutId(layout: MachineLayout): number {
  let id = layoutIds.get(layout);
  if (id === undefined) {
    id = nextLayoutId++;
    layoutIds.set(layout, id);
  }
  return id;
}

export function drawMachine(
  svg: SVGSVGElement,
  layout: MachineLayout,
  colors: TaskColors,
  view: CpuView,
  highlight?: CpuHighlight,
  shards?: ShardView,
  power?: PowerView,
  cellPalette?: CellPalette,
  motions?: MotionView,
): void {
  const svgSelection = setAttrs(select(svg), { viewBox: `0 0 ${layout.width} ${layout.height}`, width: layout.width, height: layout.height });
  // One layer per kind of box, created once, so boxes entered later (after a
  // machine change) never paint over the CPU cells.
  const layer = (name: string) => setAttrs(svgSelection.selectAll<SVGGElement, string>(`g.layer-${name}`).data([name]).join('g'), { class: `layer-${name}` });
  const sockets = layer('sockets');
  const llcLayer = layer('llcs');
  const coreLayer = layer('cores');
  const cpuLayer = layer('cpus');
  // A shard lock's waiters: a line from each CPU that spun on it down to its lane.
  const lockWaitLayer = layer('lock-waits');
  // The cells' numbers and pids sit above the task moves' arcs (`drawMotions` puts
  // its layer just below this one), so an arc crossing a cell never hides them.
  const cpuTextLayer = layer('cpu-text');
  const coreIdleLayer = layer('core-idle');
  const socketPowerLayer = layer('socket-power');
  const laneLayer = layer('lanes');
  ensureDeepPattern(svgSelection);

  // The boxes change only with the layout (and the power header's room): joined again then only.
  const boxes = `${layoutId(layout)}|${power ? 'p' : ''}`;
  const boxesChanged = drawnBoxes.get(svg) !== boxes;
  drawnBoxes.set(svg, boxes);
  if (boxesChanged) {
    drawLabelledBoxes(sockets, 'socket', layout.sockets, 6, 8, power ? SOCKET_POWER_HEADER.baseline : 13);
    drawLabelledBoxes(llcLayer, 'llc', layout.llcs, 4, 6, 13);
  }
  drawSocketPower(socketPowerLayer, layout.sockets, power);

  if (boxesChanged) coreLayer
    .selectAll<SVGRectElement, (typeof layout.cores)[number]>('rect.core')
    .data(layout.cores, (box) => box.id)
    .join('rect')
    .attr('class', 'core')
    .attr('rx', 3)
    .attr('x', (b) => b.x)
    .attr('y', (b) => b.y)
    .attr('width', (b) => b.width)
    .attr('height', (b) => b.height);

  const showText = layout.cell >= 24;
  // 12 px wherever a four-digit pid fits in the cell; smaller cells keep the smaller type.
  // Type grows with the cells (a grown layout on a wide screen reads from the back of a room).
  const pidFont = layout.cell >= 34 ? Math.round(Math.min(22, Math.max(12, layout.cell * 0.18))) : 10;
  const labelFont = layout.cell >= 34 ? Math.round(Math.min(20, Math.max(12, layout.cell * 0.16))) : 9;
  const coreIdle = (cell: CpuCell) => power?.frame.cores[cell.core];
  /** What a cell is filled with: its task's colour, else its core's idle state (grey for a thread idle on an active core). */
  const cellFill = (cell: CpuCell) => {
    if (isOffline(view, cell.cpu)) return OFFLINE_FILL;
    const pid = view.running[cell.cpu] ?? 0;
    return pid !== 0 ? colors.fill(pid) : idleCellFill(coreIdle(cell), colors.fill(0));
  };
  /** The plain colour under the fill, for its text. */
  const cellBase = (cell: CpuCell) => {
    if (isOffline(view, cell.cpu)) return OFFLINE_FILL;
    const pid = view.running[cell.cpu] ?? 0;
    return pid !== 0 ? colors.fill(pid) : idleCellBase(coreIdle(cell), colors.fill(0));
  };
  /** Whether the cell's core shows its idle state's label over its cells. */
  const coreWidths = new Map(layout.cores.map((core) => [core.id, core.width]));
  const labelsIdleCore = (cell: CpuCell) => {
    const state = coreIdle(cell);
    return state !== undefined && coreIdleText(state, coreWidths.get(cell.core) ?? 0) !== '';
  };
  const runsJitter = (cell: CpuCell) => {
    const pid = view.running[cell.cpu] ?? 0;
    return pid !== 0 && colors.jitter(pid);
  };
  /** `; core 3 deep idle (...)` for a cell's tooltip when the power model runs. */
  const coreNote = (cell: CpuCell) => {
    const state = coreIdle(cell);
    return power && state !== undefined ? `; core ${cell.core} ${idleLabel(state, power.info)}` : '';
  };
  // A large machine's cells are painted on a canvas (`cellsCanvas.ts`), in the same layer.
  const onCanvas = cellsOnCanvas(layout.cpus.length);
  drawCanvasCells(cpuLayer, layout, onCanvas, {
    layout,
    colors,
    view,
    highlight,
    coreIdle: (core) => power?.frame.cores[core],
    labelsIdleCore,
    palette: cellPalette ?? LIGHT_CELLS,
    motions,
  });
  if (onCanvas) {
    const hover = (x: number, y: number) => {
      const cell = cellAt(layout, x, y);
      return cell ? cellTitle(cell, view, highlight, runsJitter(cell), coreNote(cell)) : '';
    };
    canvasHover.set(svg, hover);
  } else {
    canvasHover.delete(svg);
  }
  cpuLayer
    .selectAll<SVGGElement, (typeof layout.cpus)[number]>('g.cpu')
    .data(onCanvas ? [] : layout.cpus, (cell) => cell.cpu)
    .join((enter) => {
      const group = enter.append('g').attr('class', 'cpu');
      group.append('title');
      group.append('rect').attr('class', 'ring').attr('rx', 4);
      group.append('rect').attr('class', 'cpu-cell').attr('rx', 2);
      group.append('rect').attr('class', 'depth');
      group.append('rect').attr('class', 'jitter-mark').attr('rx', 2).attr('fill', 'none');
      return group;
    })
    // Only the cells whose state changed since the last draw are written again: with
    // hundreds of CPUs, setting every attribute of every cell each frame is most of
    // the page's work.
    .filter(function (cell) {
      const signature = `${layoutId(layout)}|${view.running[cell.cpu] ?? 0}|${view.nrRunning[cell.cpu] ?? 0}|${isOffline(view, cell.cpu) ? 'off' : ''}|${cpuMark(cell.cpu, highlight)}|${highlight?.chosen === cell.cpu}|${coreIdle(cell) ?? ''}|${power ? 'p' : ''}`;
      if (drawnSignature.get(this) === signature) return false;
      drawnSignature.set(this, signature);
      return true;
    })
    .attr('data-cpu', (cell) => cell.cpu)
    .attr('data-pid', (cell) => view.running[cell.cpu] ?? 0)
    .attr('data-nr-running', (cell) => view.nrRunning[cell.cpu] ?? 0)
    .attr('data-offline', (cell) => (isOffline(view, cell.cpu) ? 'true' : null))
    .attr('data-mark', (cell) => cpuMark(cell.cpu, highlight))
    .attr('data-jitter', (cell) => (runsJitter(cell) ? 'true' : null))
    .attr('data-idle', (cell) => coreIdle(cell) ?? null)
    .classed('allowed', (cell) => cpuMark(cell.cpu, highlight) === 'allowed')
    .classed('not-allowed', (cell) => cpuMark(cell.cpu, highlight) === 'not-allowed')
    .classed('chosen', (cell) => highlight?.chosen === cell.cpu)
    .call((group) => {
      group
        .select<SVGRectElement>('rect.ring')
        .attr('x', (c) => c.x - RING)
        .attr('y', (c) => c.y - RING)
        .attr('width', (c) => c.width + 2 * RING)
        .attr('height', (c) => c.height + 2 * RING);
      group
        .select<SVGRectElement>('rect.cpu-cell')
        .attr('x', (c) => c.x)
        .attr('y', (c) => c.y)
        .attr('width', (c) => c.width)
        .attr('height', (c) => c.height)
        .attr('fill', cellFill);
      group
        .select<SVGRectElement>('rect.jitter-mark')
        .attr('x', (c) => c.x + 1.5)
        .attr('y', (c) => c.y + 1.5)
        .attr('width', (c) => c.width - 3)
        .attr('height', (c) => c.height - 3)
        .attr('stroke', JITTER_STROKE)
        .attr('stroke-width', 2)
        .attr('stroke-dasharray', JITTER_DASH)
        .attr('visibility', (c) => (runsJitter(c) ? 'visible' : 'hidden'));
      group
        .select<SVGRectElement>('rect.depth')
        .attr('x', (c) => c.x)
        .attr('y', (c) => c.y + c.height + 2)
        .attr('height', 4)
        .attr('width', (c) => {
          const waiting = waitingOn(view, c.cpu);
          return depthWidth(waiting, c.width);
        });
      group.select('title').text((c) => cellTitle(c, view, highlight, runsJitter(c), coreNote(c)));
    });
  cpuTextLayer
    .attr('pointer-events', 'none')
    .selectAll<SVGGElement, CpuCell>('g.cpu-text')
    .data(onCanvas ? [] : layout.cpus, (cell) => cell.cpu)
    .join((enter) => {
      const group = enter.append('g').attr('class', 'cpu-text');
      group.append('text').attr('class', 'cpu-label');
      group.append('text').attr('class', 'cpu-pid');
      return group;
    })
    .filter(function (cell) {
      const signature = `${layoutId(layout)}|${view.running[cell.cpu] ?? 0}|${isOffline(view, cell.cpu) ? 'off' : ''}|${coreIdle(cell) ?? ''}|${power ? 'p' : ''}`;
      if (drawnSignature.get(this) === signature) return false;
      drawnSignature.set(this, signature);
      return true;
    })
    .attr('data-cpu', (cell) => cell.cpu)
    // As on the cell's group, for the dark theme's idle colours (styles.css).
    .attr('data-pid', (cell) => view.running[cell.cpu] ?? 0)
    .attr('data-idle', (cell) => coreIdle(cell) ?? null)
    .call((group) => {
      // A halo in the cell's own colour keeps the text readable over an arc.
      group
        .select('text.cpu-label')
        .attr('x', (c) => c.x + 3)
        .attr('y', (c) => c.y + labelFont + 1)
        .attr('fill', (c) => textOn(cellBase(c)))
        .attr('stroke', cellBase)
        .attr('fill-opacity', 0.75)
        .style('font-size', `${labelFont}px`)
        // An idle core's cells give their room to its idle state's label (the tooltip keeps the CPU's number).
        .text((c) => (showText && !labelsIdleCore(c) ? String(c.cpu) : ''));
      group
        .select('text.cpu-pid')
        .attr('x', (c) => c.x + c.width / 2)
        .attr('y', (c) => c.y + c.height - 5)
        .attr('fill', (c) => textOn(cellBase(c)))
        .attr('stroke', cellBase)
        .each(function (c) {
          const pid = view.running[c.cpu] ?? 0;
          const text = !showText ? '' : isOffline(view, c.cpu) ? 'offline' : pid !== 0 ? String(pid) : '';
          // Smaller type in a narrow cell, so two cells' pids never read as one number.
          const size = fittedTypePx(text.length, pidFont, c.width);
          select(this)
            .style('font-size', `${size}px`)
            .text(size > 0 ? text : '');
        });
    });

  drawCoreIdle(coreIdleLayer, layout.cores, layout.cell, power, showText);
  drawQueues(layer('queues'), layout, colors, view);

  drawLanes(laneLayer, layout.lanes, colors, shards, cellPalette ?? LIGHT_CELLS);
  drawLockWaits(lockWaitLayer, layout, shards);
}

/** The colour of a shard lock's waiters, as the lanes' glow. */
const SPIN_STROKE = '#dd6b20';

/**
 * Each CPU that spun on a shard's lock since the last frame: a dot at the foot of its
 * cell, in the lanes' glow colour, under the cells' numbers (its lane names it too).
 */
function drawLockWaits(layer: Selection<SVGGElement, string, SVGSVGElement, unknown>, layout: MachineLayout, shards: ShardView | undefined): void {
  const cells = new Map(layout.cpus.map((cell) => [cell.cpu, cell]));
  const waits = layout.lanes.flatMap((lane) =>
    (shards?.spinners?.[lane.shard] ?? []).flatMap((cpu) => {
      const cell = cells.get(cpu);
      return cell ? [{ cpu, shard: lane.shard, cell }] : [];
    }),
  );
  type Wait = (typeof waits)[number];
  layer
    .attr('pointer-events', 'none')
    .selectAll<SVGCircleElement, Wait>('circle.lock-wait')
    .data(waits, (wait) => `${wait.shard}/${wait.cpu}`)
    .join('circle')
    .attr('class', 'lock-wait')
    .attr('data-shard', (wait) => wait.shard)
    .attr('data-cpu', (wait) => wait.cpu)
    .attr('r', 4)
    .attr('cx', ({ cell }) => cell.x + cell.width / 2)
    .attr('cy', ({ cell }) => cell.y + cell.height)
    .attr('fill', SPIN_STROKE)
    .attr('stroke', '#ffffff')
    .attr('stroke-width', 1.5);
}

/** The width of a character of the lane's badge (12 px bold), for the patch behind it. */
const SPIN_CHAR_PX = 7.2;
/** The CPUs a lane's badge names; the tooltip names them all. */
const SPIN_NAMED = 4;

/** `spun: CPUs 3, 7`: a lane's waiters since the last frame, written at its right end (`+2` past four). */
export function spunBadge(cpus: readonly number[] | undefined): string {
  if (!cpus || cpus.length === 0) return '';
  const named = cpus.slice(0, SPIN_NAMED).join(', ');
  const more = cpus.length > SPIN_NAMED ? ` +${cpus.length - SPIN_NAMED}` : '';
  return `spun: CPU${cpus.length === 1 ? '' : 's'} ${named}${more}`;
}

/** The badge's width on the lane, its patch included. */
function badgeWidth(badge: string): number {
  return badge === '' ? 0 : badge.length * SPIN_CHAR_PX + 2 * LANE.pad;
}

/**
 * A lane's badge and the chips beside it: the badge keeps its own room at the lane's
 * right end, so it never covers a queued task; where the full badge would leave no
 * room for a chip and "+N more", it only counts the CPUs (`spun: 5`), and where even
 * that would not, there is none (the glow and the tooltip still say it).
 */
export function laneWithBadge(pids: readonly Pid[], width: number, spinners: readonly number[] | undefined): { readonly badge: string; readonly fit: LaneFit } {
  const least = LANE.pad + LANE.label + LANE.chipWidth + LANE.chipGap + LANE.more;
  const full = spunBadge(spinners);
  const counted = spinners && spinners.length > 0 ? `spun: ${spinners.length}` : '';
  const badge = [full, counted].find((candidate) => width - badgeWidth(candidate) >= least) ?? '';
  return { badge, fit: fitLane(pids, width - badgeWidth(badge)) };
}

/**
 * On cells large enough, the queued tasks themselves: a chip in each task's colour
 * along the cell's top, the next to run (the leftmost vruntime) first, and `+N`
 * when more wait than fit.
 */
function drawQueues(layer: Selection<SVGGElement, string, SVGSVGElement, unknown>, layout: MachineLayout, colors: TaskColors, view: CpuView): void {
  const queues = parseQueues(view.queues, layout.cpus.length);
  const cells = layout.cell >= 48 && queues.length > 0 ? layout.cpus : [];
  const groups = layer
    .selectAll<SVGGElement, CpuCell>('g.queue')
    .data(cells, (cell) => cell.cpu)
    .join('g')
    .attr('class', 'queue')
    .attr('data-cpu', (cell) => cell.cpu);
  groups.each(function (cell) {
    const queued = queues[cell.cpu] ?? [];
    const waiting = Math.max(queued.length, waitingOn(view, cell.cpu));
    const room = Math.max(0, Math.floor((cell.width - CPU_LABEL_ROOM + CHIP_GAP) / (CHIP + CHIP_GAP)));
    let count = Math.min(queued.length, room);
    // "+N" needs room of its own: fewer chips, rather than the count over the CPU's number.
    while (count > 0 && waiting > count && count * (CHIP + CHIP_GAP) + 6 + moreWidth(waiting - count) > cell.width - CPU_LABEL_ROOM) count--;
    const shown = queued.slice(0, count);
    const group = select(this);
    group
      .selectAll<SVGRectElement, number>('rect.queued')
      .data(shown)
      .join('rect')
      .attr('class', 'queued')
      .attr('data-pid', (pid) => pid)
      .attr('x', (_, index) => cell.x + cell.width - 4 - (index + 1) * (CHIP + CHIP_GAP) + CHIP_GAP)
      .attr('y', cell.y + 4)
      .attr('width', CHIP)
      .attr('height', CHIP)
      .attr('rx', 2)
      .attr('fill', (pid) => colors.fill(pid))
      .attr('stroke', '#ffffff')
      .attr('stroke-width', 1);
    const more = waiting - shown.length;
    group
      .selectAll<SVGTextElement, number>('text.queued-more')
      .data(more > 0 ? [more] : [])
      .join('text')
      .attr('class', 'queued-more')
      .attr('x', cell.x + cell.width - 4 - shown.length * (CHIP + CHIP_GAP) - 2)
      .attr('y', cell.y + 4 + CHIP - 2)
      .text((count) => `+${count}`);
  });
}

/** A lane's rim: grey when its lock is quiet, orange as it heats up. */
const laneStroke = interpolateRgb('#9aa5b1', '#dd6b20');

/** The shard lanes: a glowing box, a label, the queue's chips and "+N more". */
function drawLanes(
  layer: Selection<SVGGElement, string, SVGSVGElement, unknown>,
  boxes: readonly LaneBox[],
  colors: TaskColors,
  shards: ShardView | undefined,
  palette: CellPalette,
): void {
  // The lane's fill, from the theme's quiet colour to its warm one as the lock heats up.
  const laneFill = interpolateRgb(palette.laneQuiet, palette.laneHot);
  const lanes = boxes.map((box) => {
    const lane = shards?.lanes[box.shard];
    const pids = lane?.pids ?? [];
    const contention = shards?.contentions[box.shard] ?? 0;
    const { badge, fit } = laneWithBadge(pids, box.width, shards?.spinners?.[box.shard]);
    return { box, pids, contention, glow: glowOf(contention), cpus: lane?.cpus ?? '', fit, badge };
  });
  type Lane = (typeof lanes)[number];
  layer
    .selectAll<SVGGElement, Lane>('g.lane')
    .data(lanes, (lane) => `${lane.box.llc}/${lane.box.index}`)
    .join((enter) => {
      const group = enter.append('g').attr('class', 'lane');
      group.append('title');
      group.append('rect').attr('class', 'lane-box').attr('rx', 4);
      group.append('text').attr('class', 'lane-label');
      group.append('g').attr('class', 'lane-chips');
      group.append('text').attr('class', 'lane-more');
      group.append('rect').attr('class', 'lane-spin-bg').attr('rx', 3);
      group.append('text').attr('class', 'lane-spin');
      return group;
    })
    .attr('data-llc', (lane) => lane.box.llc)
    .attr('data-shard', (lane) => lane.box.index)
    .attr('data-length', (lane) => lane.pids.length)
    .attr('data-glow', (lane) => lane.glow.toFixed(2))
    .each(function (lane) {
      const group = select(this);
      const { box, fit, glow, badge } = lane;
      group
        .select('rect.lane-box')
        .attr('x', box.x)
        .attr('y', box.y)
        .attr('width', box.width)
        .attr('height', box.height)
        .attr('fill', laneFill(glow))
        .attr('stroke', laneStroke(glow))
        .attr('stroke-width', 1 + 2 * glow)
        // The glow: an orange halo whose reach and strength follow the contention.
        .style('filter', glow > 0.02 ? `drop-shadow(0 0 ${(2 + 6 * glow).toFixed(1)}px rgba(221, 107, 32, ${(0.25 + 0.75 * glow).toFixed(2)}))` : 'none');
      group
        .select('text.lane-label')
        .attr('x', box.x + LANE.pad)
        .attr('y', box.y + box.height / 2)
        .text(`shard ${box.index}`);
      const chipY = box.y + (box.height - LANE.chipHeight) / 2;
      group
        .select('g.lane-chips')
        .selectAll<SVGGElement, Pid>('g.chip')
        .data(fit.visible)
        .join((enter) => {
          const chip = enter.append('g').attr('class', 'chip');
          chip.append('rect').attr('rx', 3).attr('height', LANE.chipHeight).attr('width', LANE.chipWidth);
          chip.append('rect').attr('class', 'jitter-mark').attr('rx', 2).attr('fill', 'none').attr('height', LANE.chipHeight - 3).attr('width', LANE.chipWidth - 3);
          chip.append('text');
          return chip;
        })
        .attr('data-pid', (pid) => pid)
        .attr('data-jitter', (pid) => (colors.jitter(pid) ? 'true' : null))
        .each(function (pid, slot) {
          const chip = select(this);
          const fill = colors.fill(pid);
          chip.select('rect:not(.jitter-mark)').attr('x', chipX(box.x, slot)).attr('y', chipY).attr('fill', fill);
          chip
            .select('rect.jitter-mark')
            .attr('x', chipX(box.x, slot) + 1.5)
            .attr('y', chipY + 1.5)
            .attr('stroke', JITTER_STROKE)
            .attr('stroke-width', 2)
            .attr('stroke-dasharray', JITTER_DASH)
            .attr('visibility', colors.jitter(pid) ? 'visible' : 'hidden');
          chip
            .select('text')
            .attr('x', chipX(box.x, slot) + LANE.chipWidth / 2)
            .attr('y', chipY + LANE.chipHeight / 2)
            .attr('fill', textOn(fill))
            .text(String(pid));
        });
      group
        .select('text.lane-more')
        .attr('x', chipX(box.x, fit.visible.length) + 2)
        .attr('y', box.y + box.height / 2)
        .text(fit.more > 0 ? `+${fit.more} more` : '');
      // Who waited on this shard's lock since the last frame: at the lane's right end, in
      // room of its own (the chips stop before it), on a patch of the lane's fill.
      const spinWidth = badgeWidth(badge);
      group
        .select('rect.lane-spin-bg')
        .attr('x', box.x + box.width - spinWidth - 1)
        .attr('y', box.y + 2)
        .attr('width', spinWidth)
        .attr('height', Math.max(0, box.height - 4))
        .attr('fill', laneFill(glow))
        .attr('visibility', badge === '' ? 'hidden' : 'visible');
      group
        .select('text.lane-spin')
        .attr('x', box.x + box.width - LANE.pad)
        .attr('y', box.y + box.height / 2)
        .attr('stroke', laneFill(glow))
        .text(badge);
      const queue = lane.pids.length === 0 ? 'empty' : `${lane.pids.length} queued, head first: ${lane.pids.slice(0, 24).join(' ')}${lane.pids.length > 24 ? ' …' : ''}`;
      group
        .select('title')
        .text(
          `Shard ${box.index} of LLC ${box.llc} (CPUs ${lane.cpus}): ${queue}; its lock waited on ${(100 * lane.contention).toFixed(1)} % of acquisitions lately${spunNote(shards?.spinners?.[box.shard])}. ${shards?.lockNote ?? ''}`.trim(),
        );
    });
}

/** `; CPUs 3 and 7 spun on it just now`, naming a lane's waiters in its tooltip. */
function spunNote(cpus: readonly number[] | undefined): string {
  if (!cpus || cpus.length === 0) return '';
  const names = cpus.length === 1 ? `CPU ${cpus[0]}` : `CPUs ${cpus.slice(0, -1).join(', ')} and ${cpus[cpus.length - 1]}`;
  return `; ${names} spun on it just now`;
}

/** Joins labelled boxes (sockets, LLCs) into a layer: a rounded rect and a label. */
function drawLabelledBoxes(
  layer: Selection<SVGGElement, string, SVGSVGElement, unknown>,
  className: string,
  boxes: readonly LabelledBox[],
  radius: number,
  labelInset: number,
  labelBaseline: number,
): void {
  layer
    .selectAll<SVGGElement, LabelledBox>(`g.${className}`)
    .data(boxes, (box) => box.id)
    .join((enter) => {
      const group = enter.append('g').attr('class', className);
      group.append('rect').attr('rx', radius);
      group.append('text').attr('class', 'box-label');
      return group;
    })
    .call((group) => {
      group.select('rect').attr('x', (b) => b.x).attr('y', (b) => b.y).attr('width', (b) => b.width).attr('height', (b) => b.height);
      group.select('text').attr('x', (b) => b.x + labelInset).attr('y', (b) => b.y + labelBaseline).text((b) => b.label);
    });
}


/** A cell's tooltip: what it runs, how many wait, how it is marked, its core's idle state. */
export function cellTitle(cell: CpuCell, view: CpuView, highlight: CpuHighlight | undefined, jitter: boolean, coreNote: string): string {
  const pid = view.running[cell.cpu] ?? 0;
  const waiting = waitingOn(view, cell.cpu);
  const mark = cpuMark(cell.cpu, highlight);
  const note = highlight?.chosen === cell.cpu ? ' (chosen)' : mark === 'allowed' ? ' (allowed)' : mark === 'not-allowed' ? ' (not allowed)' : '';
  if (isOffline(view, cell.cpu)) return `CPU ${cell.cpu}: offline (hotplug)${note}`;
  return `CPU ${cell.cpu}: ${pid === 0 ? 'idle' : `running pid ${pid}${jitter ? ' (a jitter task, TurboSched)' : ''}`}, ${waiting} waiting${note}${coreNote}`;
}

/** Per machine drawing painted on a canvas, the tooltip of the cell under a point of its layout. */
const canvasHover = new WeakMap<SVGSVGElement, (x: number, y: number) => string>();

/** The tooltip for a point of the drawing when its cells are on a canvas; undefined for SVG cells. */
export function canvasCellTitle(svg: SVGSVGElement, x: number, y: number): string | undefined {
  return canvasHover.get(svg)?.(x, y);
}

/**
 * The canvas of a large machine's cells: a `foreignObject` over the whole
 * layout in the CPU layer holding an HTML canvas at the screen's pixel ratio;
 * removed when the machine is small enough for SVG cells.
 */
function drawCanvasCells(layer: Selection<SVGGElement, string, SVGSVGElement, unknown>, layout: MachineLayout, onCanvas: boolean, frame: CellsFrame): void {
  const holder = layer
    .selectAll<SVGForeignObjectElement, number>('foreignObject.cells')
    .data(onCanvas ? [0] : [])
    .join((enter) => {
      const created = enter.append('foreignObject').attr('class', 'cells');
      created.append('xhtml:canvas').attr('class', 'cells-canvas');
      return created;
    })
    .attr('x', 0)
    .attr('y', 0)
    .attr('width', layout.width)
    .attr('height', layout.height);
  const canvas = holder.select<HTMLCanvasElement>('canvas').node();
  if (!canvas) return;
  const ctx = hidpiContext(canvas, layout.width, layout.height);
  if (!ctx) return;
  const stats = drawCells(ctx, frame);
  holder.attr('data-cells', stats.cells).attr('data-running', stats.running).attr('data-motions', stats.motions);
}
