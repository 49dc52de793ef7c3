/**
 * The wakeup latency histogram: a bar a power-of-two bucket from 1 us (how many
 * wakeups waited up to that long), and the cumulative share as a line on its own
 * axis (the CDF), so the tail reads at a glance. D3 into an SVG, no React.
 */
import { line, scaleBand, scaleLinear, select } from 'd3';
import { chartLayer, drawXAxisLine, drawYGrid } from './axes';
import { setAttrs, setText } from './d3set';
import { formatCount } from '../base/format';

export const HISTOGRAM_CHART = { height: 160, left: 64, right: 44, top: 10, bottom: 30 } as const;

export interface Bucket {
  readonly upperUs: number;
  readonly count: number;
}

/** The flat `[upper_us, count, ...]` pairs as buckets. */
export function bucketsOf(flat: Float64Array): readonly Bucket[] {
  const buckets: Bucket[] = [];
  for (let index = 0; index + 1 < flat.length; index += 2) buckets.push({ upperUs: flat[index] ?? 0, count: flat[index + 1] ?? 0 });
  return buckets;
}

/** The x scale of the bars: one band a bucket across the plot. */
function bucketScale(count: number, width: number) {
  return scaleBand<number>()
    .domain(Array.from({ length: count }, (_, index) => index))
    .range([HISTOGRAM_CHART.left, width - HISTOGRAM_CHART.right])
    .padding(0.15);
}

/** The bucket whose band (gaps split between neighbours) is under `px`, or undefined off the plot. */
export function bucketNearPixel(count: number, width: number, px: number): number | undefined {
  if (count === 0 || px < HISTOGRAM_CHART.left || px > width - HISTOGRAM_CHART.right) return undefined;
  const x = bucketScale(count, width);
  const step = x.step();
  const first = (x(0) ?? 0) + x.bandwidth() / 2;
  return Math.min(count - 1, Math.max(0, Math.round((px - first) / step)));
}

/**
 * What a bucket holds, in words: `up to 64 us (from 32 us): 1,234 wakeups, 12.3 %;
 * 85.0 % of wakeups up to 64 us`. Without a bucket, the whole: the count, the
 * fullest bucket, and where 99 % of wakeups are reached.
 */
export function bucketReadout(buckets: readonly Bucket[], index: number | undefined): string {
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  const percent = (count: number) => `${total > 0 ? ((100 * count) / total).toFixed(1) : '0.0'} %`;
  const wakeups = (count: number) => `${formatCount(count)} ${count === 1 ? 'wakeup' : 'wakeups'}`;
  const bucket = index === undefined ? undefined : buckets[index];
  if (bucket === undefined || index === undefined) {
    if (total === 0) return 'no wakeup yet';
    const fullest = buckets.reduce((best, next) => (next.count > best.count ? next : best));
    let running = 0;
    const p99 = buckets.find((next) => (running += next.count) >= 0.99 * total) ?? fullest;
    return `${wakeups(total)}; most up to ${bucketLabel(fullest.upperUs)} (${percent(fullest.count)}); 99 % up to ${bucketLabel(p99.upperUs)}`;
  }
  const below = buckets.slice(0, index + 1).reduce((sum, next) => sum + next.count, 0);
  const from = index > 0 ? ` (from ${bucketLabel(buckets[index - 1]?.upperUs ?? 0)})` : '';
  return `up to ${bucketLabel(bucket.upperUs)}${from}: ${wakeups(bucket.count)}, ${percent(bucket.count)}; ${percent(below)} of wakeups up to ${bucketLabel(bucket.upperUs)}`;
}

/** A bucket's label: `1 us`, `512 us`, `2 ms`. */
export function bucketLabel(upperUs: number): string {
  return upperUs >= 1000 ? `${Math.round(upperUs / 1000)} ms` : `${Math.round(upperUs)} us`;
}

/** Draws the bars and the share line; the bar at `selected` (read out under the chart) is marked. */
export function drawHistogram(svgElement: SVGSVGElement, buckets: readonly Bucket[], width: number, selected?: number): void {
  const C = HISTOGRAM_CHART;
  const height = C.height;
  const svg = setAttrs(select(svgElement), { viewBox: `0 0 ${width} ${height}`, width, height });
  const plotRight = width - C.right;
  const plotBottom = height - C.bottom;
  const box = { left: C.left, right: plotRight, bottom: plotBottom };
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  const x = bucketScale(buckets.length, width);
  const y = scaleLinear()
    .domain([0, Math.max(1, ...buckets.map((bucket) => bucket.count))])
    .nice(4)
    .range([plotBottom, C.top]);
  const share = scaleLinear().domain([0, 100]).range([plotBottom, C.top]);
  const grid = chartLayer(svg, 'hist-grid');
  const axis = chartLayer(svg, 'hist-axis');
  const band = chartLayer(svg, 'hist-cursor');
  const bars = chartLayer(svg, 'hist-bars');
  // The bucket read out: a band the plot's height, so an empty bucket shows too.
  setAttrs(band.selectAll<SVGRectElement, number>('rect.hist-band').data(selected === undefined || selected >= buckets.length ? [] : [selected]).join('rect'), {
    class: 'hist-band',
    x: (index) => (x(index) ?? 0) - (x.step() - x.bandwidth()) / 2,
    width: x.step(),
    y: C.top,
    height: plotBottom - C.top,
  });
  drawYGrid(grid, axis, box, y.ticks(4), y, (value) => String(value));
  drawXAxisLine(axis, box);
  // Every other bucket's label, so they never overlap.
  const every = Math.max(1, Math.ceil(buckets.length / Math.max(1, Math.floor((plotRight - C.left) / 56))));
  const xTicks = setAttrs(axis.selectAll<SVGTextElement, number>('text.x-tick').data(buckets.map((_, index) => index).filter((index) => index % every === 0)).join('text'), {
    class: 'x-tick',
    x: (index) => (x(index) ?? 0) + x.bandwidth() / 2,
    y: plotBottom + 18,
  });
  setText(xTicks, (index) => bucketLabel(buckets[index]?.upperUs ?? 0));
  const cdfTicks = setAttrs(axis.selectAll<SVGTextElement, number>('text.cdf-tick').data([0, 50, 100]).join('text'), { class: 'cdf-tick', x: plotRight + 6, y: (value) => share(value) });
  setText(cdfTicks, (value) => `${value}%`);
  setAttrs(bars.selectAll<SVGRectElement, Bucket>('rect.hist-bar').data(buckets).join('rect'), {
    class: (_, index) => (index === selected ? 'hist-bar selected' : 'hist-bar'),
    'data-upper-us': (bucket) => bucket.upperUs,
    'data-count': (bucket) => bucket.count,
    x: (_, index) => x(index) ?? 0,
    width: x.bandwidth(),
    y: (bucket) => y(bucket.count),
    height: (bucket) => plotBottom - y(bucket.count),
  });
  let running = 0;
  const cumulative = buckets.map((bucket, index) => {
    running += bucket.count;
    return [(x(index) ?? 0) + x.bandwidth(), total > 0 ? (100 * running) / total : 0] as const;
  });
  setAttrs(bars.selectAll<SVGPathElement, number>('path.cdf').data([0]).join('path'), {
    class: 'cdf',
    fill: 'none',
    d: line<readonly [number, number]>().x(([px]) => px).y(([, value]) => share(value))(cumulative as [number, number][]) ?? '',
  });
}
