/**
 * The per-CPU timeline on a canvas: one lane per CPU with its task runs in the
 * machine drawing's task colours, idle left blank, a hatched band along a lane's
 * foot where tasks wait on that CPU's runqueue (taller for more of them), a time
 * axis, the playhead, and the window being brushed on the axis. No React.
 * Geometry, ticks and the wait band's shape are pure functions (tested);
 * `drawTimeline` paints only the lanes in view and asks the slice store for at
 * most a few spans per pixel, so its cost follows the canvas size, not the
 * number of switches or queue changes.
 */
import { tickStep } from 'd3';
import type { CpuId, SimTimeNs } from '../base/types';
import { cpuId } from '../base/types';
import type { SliceStore } from '../store/timeline';
import type { WaitSpan } from '../store/waits';
import { JITTER_DASH, JITTER_STROKE, textOn, type TaskColors } from './colors';

/** Lane height bounds: lanes shrink to `MIN_LANE_PX` before the region scrolls. */
export const MAX_LANE_PX = 26;
export const MIN_LANE_PX = 6;
export const AXIS_PX = 26;
export const LABEL_PX = 66;
/** The tallest the region grows before it scrolls. */
export const MAX_VIEW_PX = 420;
const LANE_GAP_PX = 1;
/** The type of labels and axis: 12 px, larger in presenter mode. */
export const TYPE_PX = 12;
export const PRESENTER_TYPE_PX = 16;
/** The height a label needs, at `typePx` type. */
const labelMinPx = (typePx: number) => typePx + 3;
const font = (typePx: number) => `${typePx}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;

/** Where merged short runs are drawn: dark enough to read as busy, no task's hue. */
export const BUSY_FILL = '#52606d';
const PLAYHEAD = '#d64545';
const SELECTED_STROKE = '#1a202c';

export interface TimelineGeometry {
  readonly width: number;
  readonly nCpus: number;
  readonly laneHeight: number;
  /** Every `labelEvery`-th lane is labelled (1 when lanes are tall enough for each). */
  readonly labelEvery: number;
  /** Height of all lanes plus the axis. */
  readonly contentHeight: number;
  /** Height of the visible region (the canvas). */
  readonly viewHeight: number;
  readonly plotLeft: number;
  readonly plotWidth: number;
  /** The labels' and axis's type size, px. */
  readonly typePx: number;
}

export function timelineGeometry(width: number, nCpus: number, typePx = TYPE_PX): TimelineGeometry {
  const lanes = Math.max(1, nCpus);
  const laneHeight = Math.max(MIN_LANE_PX, Math.min(MAX_LANE_PX, Math.floor((MAX_VIEW_PX - AXIS_PX) / lanes)));
  const contentHeight = AXIS_PX + lanes * laneHeight;
  let labelEvery = 1;
  while (labelEvery * laneHeight < labelMinPx(typePx)) labelEvery *= 2;
  // The gutter holds "CPU 511" at the label type.
  const plotLeft = Math.round((LABEL_PX * typePx) / TYPE_PX);
  return {
    width,
    nCpus,
    laneHeight,
    labelEvery,
    contentHeight,
    viewHeight: Math.min(MAX_VIEW_PX, contentHeight),
    plotLeft,
    plotWidth: Math.max(1, width - plotLeft - 8),
    typePx,
  };
}

/** The lanes at least partly visible when the lanes are scrolled by `scrollTop`. */
export function visibleLanes(geometry: TimelineGeometry, scrollTop: number): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / geometry.laneHeight));
  const last = Math.min(geometry.nCpus - 1, Math.floor((scrollTop + geometry.viewHeight - AXIS_PX) / geometry.laneHeight));
  return { first, last };
}

/** What is under a point of the canvas (CSS pixels): a CPU and a time, or nothing. */
export function hitTest(
  geometry: TimelineGeometry,
  scrollTop: number,
  t0: number,
  t1: number,
  x: number,
  y: number,
): { cpu: CpuId; timeNs: number } | undefined {
  if (y < AXIS_PX || x < geometry.plotLeft || x > geometry.plotLeft + geometry.plotWidth) return undefined;
  const lane = Math.floor((y - AXIS_PX + scrollTop) / geometry.laneHeight);
  if (lane < 0 || lane >= geometry.nCpus) return undefined;
  return { cpu: cpuId(lane), timeNs: t0 + ((x - geometry.plotLeft) / geometry.plotWidth) * (t1 - t0) };
}

export interface Tick {
  readonly timeNs: number;
  readonly label: string;
}

const UNITS: readonly { readonly ns: number; readonly name: string }[] = [
  { ns: 1e9, name: 's' },
  { ns: 1e6, name: 'ms' },
  { ns: 1e3, name: 'us' },
  { ns: 1, name: 'ns' },
];

/** Axis ticks about every 110 pixels, labelled in the unit of their step (`41.5 ms`). */
export function timeTicks(t0: number, t1: number, plotWidth: number): Tick[] {
  if (!(t1 > t0)) return [];
  const count = Math.max(2, Math.floor(plotWidth / 110));
  const step = tickStep(t0, t1, count);
  if (!(step > 0)) return [];
  // The largest unit the step is at least a tenth of: `0.5 s` rather than `500 ms`, `20.2 ms` rather than `20200 us`.
  const unit = UNITS.find((candidate) => step >= candidate.ns / 10) ?? { ns: 1, name: 'ns' };
  const decimals = Math.max(0, -Math.floor(Math.log10(step / unit.ns) + 1e-9));
  const ticks: Tick[] = [];
  for (let index = Math.ceil(t0 / step); index * step <= t1; index++) {
    const timeNs = index * step;
    ticks.push({ timeNs, label: `${(timeNs / unit.ns).toFixed(decimals)} ${unit.name}` });
  }
  return ticks;
}

/**
 * The timeline's own colours (the page's theme): lane stripes, gutter, axis, text,
 * the selected run's outline, the wait band (its ground and its hatching: black
 * and white, darker and lighter than any task's colour, whose lightness stays
 * within 0.3 to 0.8), and the brushed window's wash and edges.
 */
export interface TimelinePalette {
  readonly laneA: string;
  readonly laneB: string;
  readonly gutter: string;
  readonly axisLine: string;
  readonly text: string;
  readonly selected: string;
  readonly waitGround: string;
  readonly waitHatch: string;
  readonly brushFill: string;
  readonly brushEdge: string;
}

export const LIGHT_PALETTE: TimelinePalette = {
  laneA: '#f8fafc',
  laneB: '#eef2f6',
  gutter: '#ffffff',
  axisLine: '#9aa5b1',
  text: '#334e68',
  selected: SELECTED_STROKE,
  waitGround: '#ffffff',
  waitHatch: '#000000',
  brushFill: 'rgba(36, 59, 83, 0.18)',
  brushEdge: '#243b53',
};
export const DARK_PALETTE: TimelinePalette = {
  laneA: '#1c2733',
  laneB: '#243240',
  gutter: '#151e27',
  axisLine: '#829ab1',
  text: '#d9e2ec',
  selected: '#f0f4f8',
  waitGround: '#000000',
  waitHatch: '#ffffff',
  brushFill: 'rgba(240, 244, 248, 0.2)',
  brushEdge: '#f0f4f8',
};

/** The wait band is full height from this many waiting tasks up. */
export const WAIT_FULL = 3;
/** Hatch lines' spacing along the band, and their width, in CSS pixels. */
const HATCH_PX = 6;
const HATCH_LINE_PX = 2;
/** Band rectangles narrower than this are filled solid: hatching needs room to show. */
const HATCH_MIN_WIDTH_PX = 4;
/** Lanes thinner than this give the band their whole height, filled solid (too thin to hatch). */
const THIN_LANE_PX = 12;

/**
 * The tallest the wait band grows in a lane of `barHeight` pixels: three fifths of
 * the lane, or the lower half of a thin lane (many CPUs), so the runs above it stay
 * visible where every CPU has tasks waiting, and 1, 2 and 3+ still differ.
 */
export function waitBandMax(barHeight: number): number {
  return barHeight < THIN_LANE_PX ? Math.max(2, Math.round(barHeight / 2)) : Math.round(barHeight * 0.6);
}

/**
 * The wait band's height for `waiting` tasks (a mean where changes are closer than
 * a pixel): a third of the band per task up to `WAIT_FULL`, and never less than a
 * pixel while anyone waits, so a short wait still shows.
 */
export function waitBandHeight(waiting: number, barHeight: number): number {
  if (!(waiting > 0)) return 0;
  const max = waitBandMax(barHeight);
  return Math.max(1, Math.round((Math.min(waiting, WAIT_FULL) / WAIT_FULL) * max));
}

/** One rectangle of the wait band: from `x0` to `x1`, `height` pixels tall from the lane's foot. */
export interface WaitRect {
  readonly x0: number;
  readonly x1: number;
  readonly height: number;
}

/**
 * The wait band's rectangles for a lane's wait spans: at least a pixel wide each,
 * and touching neighbours of the same height merged, so a dense stretch costs a
 * rectangle per change of height rather than one per span.
 */
export function waitRects(spans: readonly WaitSpan[], xOf: (timeNs: number) => number, barHeight: number): WaitRect[] {
  const rects: WaitRect[] = [];
  for (const span of spans) {
    const height = waitBandHeight(span.waiting, barHeight);
    if (height === 0) continue;
    const x0 = xOf(span.start);
    const x1 = Math.max(x0 + 1, xOf(span.end));
    const previous = rects[rects.length - 1];
    if (previous && previous.height === height && x0 <= previous.x1 + 0.01) {
      rects[rects.length - 1] = { x0: previous.x0, x1: Math.max(previous.x1, x1), height };
    } else {
      rects.push({ x0, x1, height });
    }
  }
  return rects;
}

export interface TimelineFrame {
  /** The colours to draw with; the light ones by default. */
  readonly palette?: TimelinePalette;
  readonly geometry: TimelineGeometry;
  readonly scrollTop: number;
  readonly t0: number;
  readonly t1: number;
  readonly nowNs: SimTimeNs;
  readonly slices: SliceStore;
  readonly colors: TaskColors;
  readonly comm: (pid: number) => string | undefined;
  readonly selectedPid: number | undefined;
  /** The window being brushed on the time axis (either end first), drawn over the plot. */
  readonly brush?: { readonly fromNs: number; readonly toNs: number } | undefined;
}

/** What a draw painted: the lanes and spans, and the middle of the widest task run (for tests). */
export interface DrawStats {
  /** Lanes painted (the ones in view). */
  readonly lanes: number;
  readonly spans: number;
  readonly sample: { readonly x: number; readonly y: number; readonly cpu: number } | undefined;
  /** Rectangles of the wait band painted, and on how many lanes. */
  readonly waitSpans: number;
  readonly waitLanes: number;
  /** The widest wait rectangle in full view (the tallest of equals): its ends, its middle's height and its own (for tests). */
  readonly waitSample: { readonly x0: number; readonly x1: number; readonly y: number; readonly height: number; readonly cpu: number } | undefined;
  /** The time range drawn. */
  readonly t0: number;
  readonly t1: number;
}

/** Paints one frame of the timeline into `ctx`, whose transform maps CSS pixels. */
export function drawTimeline(ctx: CanvasRenderingContext2D, frame: TimelineFrame): DrawStats {
  const { geometry, scrollTop, t0, t1, slices } = frame;
  const palette = frame.palette ?? LIGHT_PALETTE;
  const { laneHeight, plotLeft, plotWidth, width, viewHeight } = geometry;
  const pixelNs = (t1 - t0) / plotWidth;
  const xOf = (timeNs: number) => plotLeft + ((timeNs - t0) / (t1 - t0)) * plotWidth;
  ctx.clearRect(0, 0, width, viewHeight);
  ctx.font = font(geometry.typePx);
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';

  const { first, last } = visibleLanes(geometry, scrollTop);
  const laneTop = (lane: number) => AXIS_PX + lane * laneHeight - scrollTop;
  const barHeight = Math.max(1, laneHeight - LANE_GAP_PX);
  let spans = 0;
  let waitSpans = 0;
  let waitLanes = 0;
  let waitSample: DrawStats['waitSample'];
  let sample: DrawStats['sample'];
  let sampleWidth = 0;

  ctx.save();
  ctx.beginPath();
  ctx.rect(0, AXIS_PX, width, viewHeight - AXIS_PX);
  ctx.clip();
  for (let lane = first; lane <= last; lane++) {
    const top = laneTop(lane);
    // Alternate lane backgrounds, so a row can be followed across the plot.
    ctx.fillStyle = lane % 2 === 0 ? palette.laneA : palette.laneB;
    ctx.fillRect(plotLeft, top, plotWidth, barHeight);
    for (const span of slices.slicesIn(cpuId(lane), t0, t1, pixelNs)) {
      const x0 = xOf(span.start);
      const x1 = Math.max(x0 + 1, xOf(span.end));
      const fill = span.kind === 'busy' || span.pid === undefined ? BUSY_FILL : frame.colors.fill(span.pid);
      ctx.fillStyle = fill;
      // A pixel of background between neighbouring runs, so two shades of a workload's hue stay apart.
      ctx.fillRect(x0, top, x1 - x0 > 3 ? x1 - x0 - 1 : x1 - x0, barHeight);
      spans += 1;
      if (span.kind === 'run' && span.pid !== undefined) {
        // A jitter task's run (TurboSched's class) is outlined dashed, as on the machine.
        if (x1 - x0 >= 6 && frame.colors.jitter(span.pid)) {
          ctx.strokeStyle = JITTER_STROKE;
          ctx.lineWidth = 1.5;
          ctx.setLineDash(JITTER_DASH.split(' ').map(Number));
          ctx.strokeRect(x0 + 0.75, top + 0.75, Math.max(1, x1 - x0 - 2.5), Math.max(1, barHeight - 1.5));
          ctx.setLineDash([]);
        }
        if (span.pid === frame.selectedPid) {
          ctx.strokeStyle = palette.selected;
          ctx.lineWidth = 2;
          ctx.strokeRect(x0 + 1, top + 1, Math.max(1, x1 - x0 - 2), Math.max(1, barHeight - 2));
        }
        if (x1 - x0 > sampleWidth && top >= AXIS_PX && top + barHeight <= viewHeight) {
          sampleWidth = x1 - x0;
          sample = { x: (x0 + x1) / 2, y: top + barHeight / 2, cpu: lane };
        }
        // The task where it fits, as canvas text (never HTML): `comm pid`, else the pid.
        if (laneHeight >= labelMinPx(geometry.typePx) && x1 - x0 > 24) {
          const text = runLabel(ctx, frame.comm(span.pid), span.pid, x1 - x0 - 6);
          if (text !== undefined) {
            ctx.fillStyle = textOn(fill);
            ctx.fillText(text, x0 + 3, top + barHeight / 2);
          }
        }
      }
    }
    const rects = waitRects(slices.waitsIn(cpuId(lane), t0, t1, pixelNs), xOf, barHeight);
    const painted = drawWaitBand(ctx, rects, top + barHeight, barHeight, palette);
    waitSpans += painted;
    if (painted > 0) waitLanes += 1;
    if (top >= AXIS_PX && top + barHeight <= viewHeight) {
      for (const rect of rects) {
        const width = rect.x1 - rect.x0;
        const widest = waitSample ? waitSample.x1 - waitSample.x0 : 0;
        const better = !waitSample || width > widest || (width === widest && rect.height > waitSample.height);
        if (better) waitSample = { x0: rect.x0, x1: rect.x1, y: top + barHeight - rect.height / 2, height: rect.height, cpu: lane };
      }
    }
  }
  // What the kept trace does not cover (the core's trace store is full).
  const truncated = slices.truncatedAtNs;
  if (truncated !== undefined && truncated < t1) {
    const x0 = Math.max(plotLeft, xOf(truncated));
    ctx.fillStyle = 'rgba(203, 210, 217, 0.55)';
    ctx.fillRect(x0, AXIS_PX, plotLeft + plotWidth - x0, viewHeight - AXIS_PX);
  }
  ctx.restore();

  // Lane labels on a white gutter.
  ctx.fillStyle = palette.gutter;
  ctx.fillRect(0, AXIS_PX, plotLeft - 2, viewHeight - AXIS_PX);
  ctx.fillStyle = palette.text;
  ctx.textAlign = 'right';
  for (let lane = first; lane <= last; lane++) {
    if (lane % geometry.labelEvery !== 0) continue;
    const top = laneTop(lane);
    // A label on a thin lane hangs from its lane's top, next to a mark as tall as the lane.
    const middle = geometry.labelEvery === 1 ? top + barHeight / 2 : top + labelMinPx(geometry.typePx) / 2;
    if (middle < AXIS_PX + 6 || middle > viewHeight - 6) continue;
    ctx.fillText(`CPU ${lane}`, plotLeft - 8, middle);
    if (geometry.labelEvery > 1) ctx.fillRect(plotLeft - 6, top, 4, Math.max(1, laneHeight - 1));
  }

  // The axis.
  ctx.fillStyle = palette.gutter;
  ctx.fillRect(0, 0, width, AXIS_PX);
  ctx.strokeStyle = palette.axisLine;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(plotLeft, AXIS_PX - 0.5);
  ctx.lineTo(plotLeft + plotWidth, AXIS_PX - 0.5);
  ctx.stroke();
  ctx.fillStyle = palette.text;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'alphabetic';
  for (const tick of timeTicks(t0, t1, plotWidth)) {
    const x = Math.round(xOf(tick.timeNs)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(x, AXIS_PX - 6);
    ctx.lineTo(x, AXIS_PX);
    ctx.stroke();
    const half = ctx.measureText(tick.label).width / 2;
    const textX = Math.min(plotLeft + plotWidth - half, Math.max(plotLeft + half, x));
    ctx.fillText(tick.label, textX, AXIS_PX - 9);
  }

  // The playhead.
  if (frame.nowNs >= t0 && frame.nowNs <= t1) {
    const x = Math.round(xOf(frame.nowNs)) + 0.5;
    ctx.strokeStyle = PLAYHEAD;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x, AXIS_PX - 8);
    ctx.lineTo(x, viewHeight);
    ctx.stroke();
    ctx.fillStyle = PLAYHEAD;
    ctx.beginPath();
    ctx.moveTo(x - 6, AXIS_PX - 10);
    ctx.lineTo(x + 6, AXIS_PX - 10);
    ctx.lineTo(x, AXIS_PX - 2);
    ctx.closePath();
    ctx.fill();
  }
  // The window being brushed: a wash over the plot, its edges, and its length on the axis.
  if (frame.brush) {
    const from = Math.min(frame.brush.fromNs, frame.brush.toNs);
    const to = Math.max(frame.brush.fromNs, frame.brush.toNs);
    const x0 = Math.max(plotLeft, Math.min(plotLeft + plotWidth, xOf(from)));
    const x1 = Math.max(plotLeft, Math.min(plotLeft + plotWidth, xOf(to)));
    ctx.fillStyle = palette.brushFill;
    ctx.fillRect(x0, 0, x1 - x0, viewHeight);
    ctx.strokeStyle = palette.brushEdge;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(Math.round(x0), 0);
    ctx.lineTo(Math.round(x0), viewHeight);
    ctx.moveTo(Math.round(x1), 0);
    ctx.lineTo(Math.round(x1), viewHeight);
    ctx.stroke();
    const label = formatSpan(to - from);
    const half = ctx.measureText(label).width / 2 + 4;
    const middle = Math.min(plotLeft + plotWidth - half, Math.max(plotLeft + half, (x0 + x1) / 2));
    ctx.fillStyle = palette.gutter;
    ctx.fillRect(middle - half, 2, half * 2, AXIS_PX - 6);
    ctx.fillStyle = palette.text;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(label, middle, AXIS_PX / 2 - 1);
  }
  return { lanes: last - first + 1, spans, sample, waitSpans, waitLanes, waitSample, t0, t1 };
}

/** A window's length in the unit that suits it: `840 us`, `12.5 ms`, `1.20 s`. */
export function formatSpan(ns: number): string {
  const unit = UNITS.find((candidate) => ns >= candidate.ns) ?? { ns: 1, name: 'ns' };
  const value = ns / unit.ns;
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${unit.name}`;
}

/**
 * Paints a lane's wait band, its foot at `bottom`: the rectangles filled with the
 * band's ground, hatched with diagonal lines clipped to them, and a line along
 * their tops so the band's height reads at a glance; on thin lanes, and where a
 * rectangle is too narrow for hatching, filled solid with the hatching's colour.
 * Returns the rectangles painted.
 */
function drawWaitBand(ctx: CanvasRenderingContext2D, rects: readonly WaitRect[], bottom: number, barHeight: number, palette: TimelinePalette): number {
  if (rects.length === 0) return 0;
  const bandMax = waitBandMax(barHeight);
  const hatched = (rect: WaitRect) => barHeight >= THIN_LANE_PX && rect.x1 - rect.x0 >= HATCH_MIN_WIDTH_PX;
  const wide = rects.filter(hatched);
  if (wide.length < rects.length) {
    // The solid ones as one path, one fill.
    ctx.beginPath();
    for (const rect of rects) {
      if (!hatched(rect)) ctx.rect(rect.x0, bottom - rect.height, rect.x1 - rect.x0, rect.height);
    }
    ctx.fillStyle = palette.waitHatch;
    ctx.fill();
  }
  if (wide.length > 0) {
    ctx.beginPath();
    for (const rect of wide) ctx.rect(rect.x0, bottom - rect.height, rect.x1 - rect.x0, rect.height);
    ctx.fillStyle = palette.waitGround;
    ctx.fill();
    ctx.save();
    ctx.clip();
    const left = wide[0]?.x0 ?? 0;
    const right = wide[wide.length - 1]?.x1 ?? left;
    ctx.strokeStyle = palette.waitHatch;
    ctx.lineWidth = HATCH_LINE_PX;
    ctx.beginPath();
    // Lines rising to the right, one every `HATCH_PX` along the band, on a grid fixed to the canvas.
    for (let x = Math.floor((left - bandMax) / HATCH_PX) * HATCH_PX; x <= right; x += HATCH_PX) {
      ctx.moveTo(x, bottom);
      ctx.lineTo(x + bandMax, bottom - bandMax);
    }
    ctx.stroke();
    ctx.restore();
  }
  ctx.strokeStyle = palette.waitHatch;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (const rect of wide) {
    const y = bottom - rect.height + 0.5;
    ctx.moveTo(rect.x0, y);
    ctx.lineTo(rect.x1, y);
  }
  ctx.stroke();
  return rects.length;
}

/** `comm pid` if it fits in `maxWidth` pixels, else the pid alone, else nothing. */
function runLabel(ctx: CanvasRenderingContext2D, comm: string | undefined, runPid: number, maxWidth: number): string | undefined {
  const full = comm === undefined ? undefined : `${comm} ${runPid}`;
  if (full !== undefined && ctx.measureText(full).width <= maxWidth) return full;
  const short = String(runPid);
  return ctx.measureText(short).width <= maxWidth ? short : undefined;
}
