/**
 * The parts every chart draws alike (the Frequency chart, the charts over time,
 * the sweep plot): a layer per kind of mark, horizontal gridlines with their
 * y-axis labels, the x axis line, and a time axis labelled as the timeline labels
 * it. D3, no React.
 */
import type { Selection } from 'd3';
import { timeTicks } from './timeline';

type Svg = Selection<SVGSVGElement, unknown, null, undefined>;
type Layer = Selection<SVGGElement, string, SVGSVGElement, unknown>;

/** The chart's `g.NAME` layer, made once and kept in order. */
export function chartLayer(svg: Svg, name: string): Layer {
  return svg.selectAll<SVGGElement, string>(`g.${name}`).data([name]).join('g').attr('class', name);
}

/** The plot's horizontal extent and its bottom edge, in SVG pixels. */
export interface PlotBox {
  readonly left: number;
  readonly right: number;
  readonly bottom: number;
}

/** Gridlines at `ticks` (where `y` places them) and their labels left of the plot. */
export function drawYGrid(grid: Layer, axis: Layer, box: PlotBox, ticks: readonly number[], y: (value: number) => number, label: (value: number) => string, gap = 6): void {
  grid
    .selectAll<SVGLineElement, number>('line.grid')
    .data(ticks)
    .join('line')
    .attr('class', 'grid')
    .attr('x1', box.left)
    .attr('x2', box.right)
    .attr('y1', (value) => Math.round(y(value)) + 0.5)
    .attr('y2', (value) => Math.round(y(value)) + 0.5);
  axis
    .selectAll<SVGTextElement, number>('text.y-tick')
    .data(ticks)
    .join('text')
    .attr('class', 'y-tick')
    .attr('x', box.left - gap)
    .attr('y', (value) => y(value))
    .text(label);
}

/** The line along the plot's bottom. */
export function drawXAxisLine(axis: Layer, box: PlotBox): void {
  axis
    .selectAll<SVGLineElement, number>('line.x-axis')
    .data([0])
    .join('line')
    .attr('class', 'x-axis')
    .attr('x1', box.left)
    .attr('x2', box.right)
    .attr('y1', box.bottom + 0.5)
    .attr('y2', box.bottom + 0.5);
}

/** Simulated time from 0 to `endNs` along the bottom, labelled as the timeline labels it. */
export function drawTimeAxis(axis: Layer, box: PlotBox, endNs: number, x: (timeNs: number) => number): void {
  drawXAxisLine(axis, box);
  const ticks = timeTicks(0, endNs, box.right - box.left);
  axis
    .selectAll<SVGTextElement, (typeof ticks)[number]>('text.x-tick')
    .data(ticks)
    .join('text')
    .attr('class', 'x-tick')
    .attr('x', (tick) => Math.min(box.right - 20, Math.max(box.left + 20, x(tick.timeNs))))
    .attr('y', box.bottom + 18)
    .text((tick) => tick.label);
}
