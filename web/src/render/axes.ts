/**
 * The parts every chart draws alike (the Frequency chart, the charts over time,
 * the sweep plot): a layer per kind of mark, horizontal gridlines with their
 * y-axis labels, the x axis line, and a time axis labelled as the timeline labels
 * it. D3, no React.
 */
import type { Selection } from 'd3';
import { setAttrs, setText } from './d3set';
import { timeTicks } from './timeline';

type Svg = Selection<SVGSVGElement, unknown, null, undefined>;
type Layer = Selection<SVGGElement, string, SVGSVGElement, unknown>;

/** The chart's `g.NAME` layer, made once and kept in order. */
export function chartLayer(svg: Svg, name: string): Layer {
  return setAttrs(svg.selectAll<SVGGElement, string>(`g.${name}`).data([name]).join('g'), { class: name });
}

/** The plot's horizontal extent and its bottom edge, in SVG pixels. */
export interface PlotBox {
  readonly left: number;
  readonly right: number;
  readonly bottom: number;
}

/** Gridlines at `ticks` (where `y` places them) and their labels left of the plot. */
export function drawYGrid(grid: Layer, axis: Layer, box: PlotBox, ticks: readonly number[], y: (value: number) => number, label: (value: number) => string, gap = 6): void {
  setAttrs(grid.selectAll<SVGLineElement, number>('line.grid').data(ticks).join('line'), {
    class: 'grid',
    x1: box.left,
    x2: box.right,
    y1: (value) => Math.round(y(value)) + 0.5,
    y2: (value) => Math.round(y(value)) + 0.5,
  });
  const labels = setAttrs(axis.selectAll<SVGTextElement, number>('text.y-tick').data(ticks).join('text'), { class: 'y-tick', x: box.left - gap, y: (value) => y(value) });
  setText(labels, label);
}

/** The line along the plot's bottom. */
export function drawXAxisLine(axis: Layer, box: PlotBox): void {
  setAttrs(axis.selectAll<SVGLineElement, number>('line.x-axis').data([0]).join('line'), {
    class: 'x-axis',
    x1: box.left,
    x2: box.right,
    y1: box.bottom + 0.5,
    y2: box.bottom + 0.5,
  });
}

/** Simulated time from 0 to `endNs` along the bottom, labelled as the timeline labels it. */
export function drawTimeAxis(axis: Layer, box: PlotBox, endNs: number, x: (timeNs: number) => number): void {
  drawXAxisLine(axis, box);
  const ticks = timeTicks(0, endNs, box.right - box.left);
  const labels = setAttrs(axis.selectAll<SVGTextElement, (typeof ticks)[number]>('text.x-tick').data(ticks).join('text'), {
    class: 'x-tick',
    x: (tick) => Math.min(box.right - 20, Math.max(box.left + 20, x(tick.timeNs))),
    y: box.bottom + 18,
  });
  setText(labels, (tick) => tick.label);
}
