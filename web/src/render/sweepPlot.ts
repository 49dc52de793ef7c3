/**
 * The sweep plot, as the seeds' papers draw theirs: the metric against the varied
 * field (p99 against worker threads, benefit against N), one line per value of the
 * other varied fields, each point the median over seeds with a bar from the min to
 * the max. D3 into an SVG, no React; type at 13 px or more so it reads on a projector.
 */
import { format, max, min, scaleLinear, scalePoint, select } from 'd3';
import type { SweepPlot } from '../store/sweep';
import { chartLayer, drawXAxisLine, drawYGrid } from './axes';
import { socketColor } from './frequencyChart';

export const SWEEP_PLOT = { height: 320, left: 78, right: 20, top: 16, bottom: 52 } as const;

export function seriesColor(index: number): string {
  return socketColor(index);
}

/** The y axis: from 0 (or below, for negative figures) to a little above the highest max. */
export function sweepYDomain(plot: SweepPlot): [number, number] {
  const points = plot.series.flatMap((series) => series.points);
  const low = Math.min(0, min(points, (point) => point.min) ?? 0);
  const high = max(points, (point) => point.max) ?? 1;
  return [low, high > low ? high + (high - low) * 0.06 : low + 1];
}

export function drawSweepPlot(svgElement: SVGSVGElement, plot: SweepPlot, width: number, yLabel: string): void {
  const C = SWEEP_PLOT;
  const height = C.height;
  const svg = select(svgElement).attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height);
  const plotRight = width - C.right;
  const plotBottom = height - C.bottom;
  const points = plot.series.flatMap((series) => series.points);
  const y = scaleLinear().domain(sweepYDomain(plot)).nice().range([plotBottom, C.top]);
  let xOf: (value: number | string) => number;
  let xTicks: readonly (number | string)[];
  if (plot.numericX) {
    const values = points.map((point) => Number(point.x));
    const low = min(values) ?? 0;
    const high = max(values) ?? 1;
    const x = scaleLinear()
      .domain(low === high ? [low - 1, high + 1] : [low, high])
      .range([C.left + 12, plotRight - 12]);
    xOf = (value) => x(Number(value));
    const distinct = [...new Set(values)].sort((a, b) => a - b);
    xTicks = distinct.length <= 12 ? distinct : x.ticks(8);
  } else {
    const domain = [...new Set(points.map((point) => String(point.x)))];
    const x = scalePoint<string>().domain(domain).range([C.left, plotRight]).padding(0.5);
    xOf = (value) => x(String(value)) ?? C.left;
    xTicks = domain;
  }

  const grid = chartLayer(svg, 'sweep-grid');
  const axis = chartLayer(svg, 'sweep-axis');
  const marks = chartLayer(svg, 'sweep-marks');
  const box = { left: C.left, right: plotRight, bottom: plotBottom };

  // Zero, when the axis goes below it (a change that can be a loss).
  grid
    .selectAll<SVGLineElement, number>('line.zero')
    .data(y.domain()[0]! < 0 ? [0] : [])
    .join('line')
    .attr('class', 'zero')
    .attr('x1', C.left)
    .attr('x2', plotRight)
    .attr('y1', Math.round(y(0)) + 0.5)
    .attr('y2', Math.round(y(0)) + 0.5);
  drawYGrid(grid, axis, box, y.ticks(5), y, (value) => (value === 0 ? '0' : Math.abs(value) < 1000 ? format('~g')(value) : format('~s')(value)), 8);
  drawXAxisLine(axis, box);
  axis
    .selectAll<SVGTextElement, number | string>('text.x-tick')
    .data(xTicks)
    .join('text')
    .attr('class', 'x-tick')
    .attr('x', (value) => xOf(value))
    .attr('y', plotBottom + 20)
    .text((value) => String(value));
  axis
    .selectAll<SVGTextElement, string>('text.x-title')
    .data([plot.xPath])
    .join('text')
    .attr('class', 'x-title')
    .attr('x', (C.left + plotRight) / 2)
    .attr('y', height - 8)
    .text((text) => text);
  axis
    .selectAll<SVGTextElement, string>('text.y-title')
    .data([yLabel])
    .join('text')
    .attr('class', 'y-title')
    .attr('transform', `translate(16, ${(C.top + plotBottom) / 2}) rotate(-90)`)
    .text((text) => text);

  const seriesGroups = marks
    .selectAll<SVGGElement, SweepPlot['series'][number]>('g.sweep-series')
    .data(plot.series, (series) => series.label)
    .join('g')
    .attr('class', 'sweep-series')
    .attr('data-label', (series) => series.label)
    .attr('data-points', (series) => series.points.length)
    .attr('stroke', (_, index) => seriesColor(index))
    .attr('fill', (_, index) => seriesColor(index));
  seriesGroups
    .selectAll<SVGPathElement, SweepPlot['series'][number]>('path.sweep-line')
    .data((series) => [series])
    .join('path')
    .attr('class', 'sweep-line')
    .attr('fill', 'none')
    .attr('d', (series) => series.points.map((point, index) => `${index === 0 ? 'M' : 'L'}${xOf(point.x)},${y(point.median)}`).join(''));
  // The spread over seeds: a bar from min to max with short caps.
  seriesGroups
    .selectAll<SVGPathElement, SweepPlot['series'][number]['points'][number]>('path.sweep-spread')
    .data((series) => series.points)
    .join('path')
    .attr('class', 'sweep-spread')
    .attr('fill', 'none')
    .attr('d', (point) => {
      const cx = xOf(point.x);
      const top = y(point.max);
      const bottom = y(point.min);
      return `M${cx},${top}V${bottom}M${cx - 5},${top}H${cx + 5}M${cx - 5},${bottom}H${cx + 5}`;
    });
  seriesGroups
    .selectAll<SVGCircleElement, SweepPlot['series'][number]['points'][number]>('circle.sweep-point')
    .data((series) => series.points)
    .join('circle')
    .attr('class', 'sweep-point')
    .attr('r', 4.5)
    .attr('cx', (point) => xOf(point.x))
    .attr('cy', (point) => y(point.median))
    .selectAll('title')
    .data((point) => [point])
    .join('title')
    .text((point) => `${plot.xPath}=${String(point.x)}: median ${point.median}, min ${point.min}, max ${point.max}`);
}
