/**
 * The Frequency chart: each socket's frequency (MHz) against simulated time, one
 * stepped line per socket, from the run's start to the playhead, with the
 * platform's nominal frequency as a dashed rule. D3 into an SVG, no React; type
 * at 12 px or more.
 */
import { line, curveStepAfter, scaleLinear, select } from 'd3';
import type { FrequencySeries } from '../store/power';
import { chartLayer, drawTimeAxis, drawYGrid } from './axes';

/** One colour per socket: dark enough for a 2 px line on white, and apart from each other. */
const SOCKET_COLORS = ['#2b6cb0', '#c05621', '#2f855a', '#805ad5', '#b83280', '#975a16', '#2c7a7b', '#4a5568'] as const;

export function socketColor(socket: number): string {
  return SOCKET_COLORS[socket % SOCKET_COLORS.length] ?? '#4a5568';
}

export const FREQUENCY_CHART = { height: 150, left: 64, right: 14, top: 12, bottom: 30 } as const;

export interface FrequencyChartInput {
  readonly width: number;
  readonly series: FrequencySeries;
  readonly nowNs: number;
  readonly nominalMhz: number;
  /** The turbo table (MHz by cores not in deep idle), so the axis spans what the socket can reach. */
  readonly turboMhz: readonly number[];
}

/**
 * The MHz axis: from the lowest to the highest of the samples, the nominal
 * frequency and the turbo table, with a little room, on round 100 MHz steps.
 */
export function frequencyDomain(extent: readonly [number, number] | undefined, nominalMhz: number, turboMhz: readonly number[]): [number, number] {
  const values = [nominalMhz, ...turboMhz, ...(extent ?? [])].filter((value) => Number.isFinite(value) && value > 0);
  if (values.length === 0) return [0, 1000];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const room = Math.max(100, (high - low) * 0.08);
  return [Math.max(0, Math.floor((low - room) / 100) * 100), Math.ceil((high + room) / 100) * 100];
}

export function drawFrequencyChart(svgElement: SVGSVGElement, input: FrequencyChartInput): void {
  const { width, series, nowNs } = input;
  const C = FREQUENCY_CHART;
  const height = C.height;
  const svg = select(svgElement).attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height);
  const plotRight = width - C.right;
  const plotBottom = height - C.bottom;
  const endNs = Math.max(nowNs, 1e6);
  const x = scaleLinear().domain([0, endNs]).range([C.left, plotRight]);
  const y = scaleLinear().domain(frequencyDomain(series.extent(), input.nominalMhz, input.turboMhz)).range([plotBottom, C.top]);

  const grid = chartLayer(svg, 'freq-grid');
  const axis = chartLayer(svg, 'freq-axis');
  const lines = chartLayer(svg, 'freq-lines');
  const box = { left: C.left, right: plotRight, bottom: plotBottom };

  // The MHz axis: gridlines with GHz labels.
  drawYGrid(grid, axis, box, y.ticks(4), y, (mhz) => `${(mhz / 1000).toFixed(1)} GHz`);

  // Nominal frequency: a dashed rule, labelled.
  const nominalY = Math.round(y(input.nominalMhz)) + 0.5;
  grid
    .selectAll<SVGLineElement, number>('line.nominal')
    .data([input.nominalMhz])
    .join('line')
    .attr('class', 'nominal')
    .attr('x1', C.left)
    .attr('x2', plotRight)
    .attr('y1', nominalY)
    .attr('y2', nominalY);
  grid
    .selectAll<SVGTextElement, number>('text.nominal-label')
    .data([input.nominalMhz])
    .join('text')
    .attr('class', 'nominal-label')
    .attr('x', plotRight - 4)
    .attr('y', nominalY - 4)
    .text((mhz) => `nominal ${(mhz / 1000).toFixed(2)} GHz`);

  // The time axis, as the timeline labels it.
  drawTimeAxis(axis, box, endNs, x);

  // One stepped line per socket.
  const path = line<readonly [number, number]>()
    .defined(([, mhz]) => Number.isFinite(mhz))
    .x(([time]) => x(time))
    .y(([, mhz]) => y(mhz))
    .curve(curveStepAfter);
  const sockets = Array.from({ length: series.sockets }, (_, socket) => socket);
  lines
    .selectAll<SVGPathElement, number>('path.freq-line')
    .data(sockets)
    .join('path')
    .attr('class', 'freq-line')
    .attr('data-socket', (socket) => socket)
    .attr('data-points', (socket) => series.points(socket).length)
    .attr('stroke', (socket) => socketColor(socket))
    .attr('d', (socket) => {
      const points = series.points(socket);
      // The last value holds until the playhead.
      const last = points[points.length - 1];
      return path(last && last[0] < nowNs ? [...points, [nowNs, last[1]] as const] : points) ?? '';
    });
}
