/**
 * A chart over simulated time for the Charts region: one or more lines against
 * time from the run's start to the playhead, the y axis from 0 with round ticks.
 * D3 into an SVG, no React; type at 12 px or more.
 */
import { format, line, scaleLinear, select } from 'd3';
import { chartLayer, drawTimeAxis, drawYGrid } from './axes';
import { setAttrs } from './d3set';

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
  /** The point being read (by pointer or keys): a line across the plot at its time, a dot on each line. */
  readonly cursor?: number;
}

/** The x scale of a chart `width` wide up to `nowNs`, as `drawLineChart` draws it. */
function timeScale(width: number, nowNs: number) {
  return scaleLinear()
    .domain([0, Math.max(nowNs, 1e6)])
    .range([LINE_CHART.left, width - LINE_CHART.right]);
}

/**
 * The point nearest in time to the chart's x pixel `px` (the chart `width` wide up
 * to `nowNs`), or undefined when there are none.
 */
export function pointNearPixel(points: readonly { readonly timeNs: number }[], width: number, nowNs: number, px: number): number | undefined {
  if (points.length === 0) return undefined;
  const timeNs = timeScale(width, nowNs).invert(px);
  // Points are in time order: the first at or after the time, or the one before it.
  let low = 0;
  let high = points.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((points[mid]?.timeNs ?? 0) < timeNs) low = mid + 1;
    else high = mid;
  }
  const before = Math.max(0, low - 1);
  return Math.abs((points[before]?.timeNs ?? 0) - timeNs) <= Math.abs((points[low]?.timeNs ?? 0) - timeNs) ? before : low;
}

export function drawLineChart<P extends { readonly timeNs: number }>(svgElement: SVGSVGElement, input: LineChartInput<P>): void {
  const C = LINE_CHART;
  const { width, points, nowNs } = input;
  const height = C.height;
  const svg = setAttrs(select(svgElement), { viewBox: `0 0 ${width} ${height}`, width, height });
  const plotRight = width - C.right;
  const plotBottom = height - C.bottom;
  const endNs = Math.max(nowNs, 1e6);
  let top = input.minTop ?? 0;
  for (const chartLine of input.lines) for (const point of points) top = Math.max(top, chartLine.value(point));
  const x = timeScale(width, endNs);
  // A chart with a natural top (100 %) ends there while no point passes it; others
  // get a little headroom, rounded to a tick.
  const atMinTop = input.minTop !== undefined && top <= input.minTop;
  const y = atMinTop
    ? scaleLinear().domain([0, top]).range([plotBottom, C.top])
    : scaleLinear()
        .domain([0, top > 0 ? top * 1.05 : 1])
        .nice(4)
        .range([plotBottom, C.top]);

  const grid = chartLayer(svg, 'chart-grid');
  const axis = chartLayer(svg, 'chart-axis');
  const lines = chartLayer(svg, 'chart-lines');
  const box = { left: C.left, right: plotRight, bottom: plotBottom };
  const tick = format('~s');
  drawYGrid(grid, axis, box, y.ticks(4), y, (value) => `${value === 0 ? '0' : value < 1000 ? format('~g')(value) : tick(value)}${input.unit}`);
  drawTimeAxis(axis, box, endNs, x);

  setAttrs(lines.selectAll<SVGPathElement, ChartLine<P>>('path.chart-line').data(input.lines, (chartLine) => chartLine.key).join('path'), {
    class: 'chart-line',
    'data-line': (chartLine) => chartLine.key,
    'data-points': points.length,
    fill: 'none',
    stroke: (chartLine) => chartLine.color,
    'stroke-width': 2,
    'stroke-dasharray': (chartLine) => (chartLine.dashed ? '5 3' : null),
    d: (chartLine) =>
      line<P>()
        .x((point) => x(point.timeNs))
        .y((point) => y(chartLine.value(point)))(points as P[]) ?? '',
  });

  const cursorPoint = input.cursor === undefined ? undefined : points[input.cursor];
  const cursor = chartLayer(svg, 'chart-cursor');
  const at = cursorPoint ? [cursorPoint] : [];
  setAttrs(cursor.selectAll<SVGLineElement, P>('line.cursor-line').data(at).join('line'), {
    class: 'cursor-line',
    x1: (point) => x(point.timeNs),
    x2: (point) => x(point.timeNs),
    y1: C.top,
    y2: plotBottom,
  });
  setAttrs(cursor.selectAll<SVGCircleElement, ChartLine<P>>('circle.cursor-dot').data(cursorPoint ? input.lines : [], (chartLine) => chartLine.key).join('circle'), {
    class: 'cursor-dot',
    'data-line': (chartLine) => chartLine.key,
    cx: cursorPoint ? x(cursorPoint.timeNs) : 0,
    cy: (chartLine) => (cursorPoint ? y(chartLine.value(cursorPoint)) : 0),
    r: 4,
    fill: (chartLine) => chartLine.color,
  });
}
