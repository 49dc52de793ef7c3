/**
 * Draws the machine into an SVG with D3 data joins: socket, LLC and core boxes,
 * one cell per CPU filled with its running task's colour, and beneath each cell a
 * strip showing how many tasks wait in that CPU's runqueue. When a task is
 * selected, the CPUs it may use are outlined, the others dimmed, and the CPU its
 * explained decision chose is ringed.
 */
import { select, type Selection } from 'd3';
import type { LabelledBox, MachineLayout } from './layout';
import { textOn, type TaskColors } from './colors';

export interface CpuView {
  readonly running: Uint32Array;
  readonly nrRunning: Uint32Array;
}

/** The selected task's CPUs: those it may use, and the one its decision chose. */
export interface CpuHighlight {
  readonly allowed: ReadonlySet<number>;
  readonly chosen: number | undefined;
}

export type CpuMark = 'none' | 'allowed' | 'not-allowed';

/** How a CPU is marked for the selected task (none when no task is selected). */
export function cpuMark(cpu: number, highlight: CpuHighlight | undefined): CpuMark {
  if (!highlight) return 'none';
  return highlight.allowed.has(cpu) ? 'allowed' : 'not-allowed';
}

const DEPTH_UNIT = 4;
/** How far the chosen CPU's ring sits outside its cell. */
const RING = 3;

export function drawMachine(svg: SVGSVGElement, layout: MachineLayout, colors: TaskColors, view: CpuView, highlight?: CpuHighlight): void {
  const svgSelection = select(svg).attr('viewBox', `0 0 ${layout.width} ${layout.height}`).attr('width', layout.width).attr('height', layout.height);
  // One layer per kind of box, created once, so boxes entered later (after a
  // machine change) never paint over the CPU cells.
  const layer = (name: string) =>
    svgSelection
      .selectAll<SVGGElement, string>(`g.layer-${name}`)
      .data([name])
      .join('g')
      .attr('class', `layer-${name}`);
  const sockets = layer('sockets');
  const llcLayer = layer('llcs');
  const coreLayer = layer('cores');
  const cpuLayer = layer('cpus');

  drawLabelledBoxes(sockets, 'socket', layout.sockets, 6, 8);
  drawLabelledBoxes(llcLayer, 'llc', layout.llcs, 4, 6);

  coreLayer
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
  cpuLayer
    .selectAll<SVGGElement, (typeof layout.cpus)[number]>('g.cpu')
    .data(layout.cpus, (cell) => cell.cpu)
    .join((enter) => {
      const group = enter.append('g').attr('class', 'cpu');
      group.append('title');
      group.append('rect').attr('class', 'ring').attr('rx', 4);
      group.append('rect').attr('class', 'cpu-cell').attr('rx', 2);
      group.append('rect').attr('class', 'depth');
      group.append('text').attr('class', 'cpu-label');
      group.append('text').attr('class', 'cpu-pid');
      return group;
    })
    .attr('data-cpu', (cell) => cell.cpu)
    .attr('data-pid', (cell) => view.running[cell.cpu] ?? 0)
    .attr('data-nr-running', (cell) => view.nrRunning[cell.cpu] ?? 0)
    .attr('data-mark', (cell) => cpuMark(cell.cpu, highlight))
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
        .attr('fill', (c) => colors.fill(view.running[c.cpu] ?? 0));
      group
        .select<SVGRectElement>('rect.depth')
        .attr('x', (c) => c.x)
        .attr('y', (c) => c.y + c.height + 2)
        .attr('height', 4)
        .attr('width', (c) => {
          const waiting = waitingOn(view, c.cpu);
          return Math.min(c.width, waiting * DEPTH_UNIT);
        });
      group
        .select('text.cpu-label')
        .attr('x', (c) => c.x + 3)
        .attr('y', (c) => c.y + 10)
        .attr('fill', (c) => textOn(colors.fill(view.running[c.cpu] ?? 0)))
        .attr('fill-opacity', 0.75)
        .text((c) => (showText ? String(c.cpu) : ''));
      group
        .select('text.cpu-pid')
        .attr('x', (c) => c.x + c.width / 2)
        .attr('y', (c) => c.y + c.height - 5)
        .attr('fill', (c) => textOn(colors.fill(view.running[c.cpu] ?? 0)))
        .text((c) => {
          const pid = view.running[c.cpu] ?? 0;
          return showText && pid !== 0 ? String(pid) : '';
        });
      group.select('title').text((c) => {
        const pid = view.running[c.cpu] ?? 0;
        const waiting = waitingOn(view, c.cpu);
        const mark = cpuMark(c.cpu, highlight);
        const note = highlight?.chosen === c.cpu ? ' (chosen)' : mark === 'allowed' ? ' (allowed)' : mark === 'not-allowed' ? ' (not allowed)' : '';
        return `CPU ${c.cpu}: ${pid === 0 ? 'idle' : `running pid ${pid}`}, ${waiting} waiting${note}`;
      });
    });
}

/** Joins labelled boxes (sockets, LLCs) into a layer: a rounded rect and a label. */
function drawLabelledBoxes(
  layer: Selection<SVGGElement, string, SVGSVGElement, unknown>,
  className: string,
  boxes: readonly LabelledBox[],
  radius: number,
  labelInset: number,
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
      group.select('text').attr('x', (b) => b.x + labelInset).attr('y', (b) => b.y + 13).text((b) => b.label);
    });
}

/** Tasks queued behind the running one. */
export function waitingOn(view: CpuView, cpu: number): number {
  const runnable = view.nrRunning[cpu] ?? 0;
  const running = (view.running[cpu] ?? 0) !== 0 ? 1 : 0;
  return Math.max(0, runnable - running);
}
