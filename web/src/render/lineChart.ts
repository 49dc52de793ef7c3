/**
 * A chart over simulated time for the Charts region: one or more lines against
 * time from the run's start to the playhead, the y axis from 0 with round ticks.
 * D3 into an SVG, no React; type at 12 px or more.
 */
import { format, line, scaleLinear, select } from 'd3';
import { timeTicks } from './timeline';

export const LINE_CHART = { height: 140, left: 64, right: 14, top: 10, bottom: 28 } as const;

export interface ChartLine<P> {
  readonly key: string;
  readonly color: string;
  readonly value: (point: P) => number;
  readonly dashed?: boolean;
}

export interface LineChartInput<P extends { readonly timeNs: number }> {
  readonly width: number;
  readonly points: readonly P[];
  readonly lines: readonly ChartLine<P>[];
  readonly nowNs: number;
  /** The least top of the y axis (100 for a percentage, so a quiet run does not fill the chart). */
  readonly minTop?: number;
  /** The unit after each y tick: `%`, ` us`. */
  readonly unit: string;
}

export function drawLineChart<P extends { readonly timeNs: number }>(svgElement: SVGSVGElement, input: LineChartInput<P>): void {
  const C = LINE_CHART;
  const { width, points, nowNs } = input;
  const height = C.height;
  const svg = select(svgElement).attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height);
  const plotRight = width - C.right;
  const plotBottom = height - C.bottom;
  const endNs = Math.max(nowNs, 1e6);
  let top = input.minTop ?? 0;
  for (const chartLine of input.lines) for (const point of points) top = Math.max(top, chartLine.value(point));
  const x = scaleLinear().domain([0, endNs]).range([C.left, plotRight]);
  const y = scaleLinear()
    .domain([0, top > 0 ? top * 1.05 : 1])
    .nice(4)
    .range([plotBottom, C.top]);

  const layer = (name: string) => svg.selectAll<SVGGElement, string>(`g.${name}`).data([name]).join('g').attr('class', name);
  const grid = layer('chart-grid');
  const axis = layer('chart-axis');
  const lines = layer('chart-lines');

  const yTicks = y.ticks(4);
  const tick = format('~s');
  grid
    .selectAll<SVGLineElement, number>('line.grid')
    .data(yTicks)
    .join('line')
    .attr('class', 'grid')
    .attr('x1', C.left)
    .attr('x2', plotRight)
    .attr('y1', (value) => Math.round(y(value)) + 0.5)
    .attr('y2', (value) => Math.round(y(value)) + 0.5);
  axis
    .selectAll<SVGTextElement, number>('text.y-tick')
    .data(yTicks)
    .join('text')
    .attr('class', 'y-tick')
    .attr('x', C.left - 6)
    .attr('y', (value) => y(value))
    .text((value) => `${value === 0 ? '0' : value < 1000 ? format('~g')(value) : tick(value)}${input.unit}`);
  const xTicks = timeTicks(0, endNs, plotRight - C.left);
  axis
    .selectAll<SVGLineElement, number>('line.x-axis')
    .data([0])
    .join('line')
    .attr('class', 'x-axis')
    .attr('x1', C.left)
    .attr('x2', plotRight)
    .attr('y1', plotBottom + 0.5)
    .attr('y2', plotBottom + 0.5);
  axis
    .selectAll<SVGTextElement, (typeof xTicks)[number]>('text.x-tick')
    .data(xTicks)
    .join('text')
    .attr('class', 'x-tick')
    .attr('x', (entry) => Math.min(plotRight - 20, Math.max(C.left + 20, x(entry.timeNs))))
    .attr('y', plotBottom + 18)
    .text((entry) => entry.label);

  lines
    .selectAll<SVGPathElement, ChartLine<P>>('path.chart-line')
    .data(input.lines, (chartLine) => chartLine.key)
    .join('path')
    .attr('class', 'chart-line')
    .attr('data-line', (chartLine) => chartLine.key)
    .attr('data-points', points.length)
    .attr('fill', 'none')
    .attr('stroke', (chartLine) => chartLine.color)
    .attr('stroke-width', 2)
    .attr('stroke-dasharray', (chartLine) => (chartLine.dashed ? '5 3' : null))
    .attr('d', (chartLine) =>
      line<P>()
        .x((point) => x(point.timeNs))
        .y((point) => y(chartLine.value(point)))(points as P[]) ?? '',
    );
}
