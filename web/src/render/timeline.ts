/**
 * The per-CPU timeline on a canvas: one lane per CPU with its task runs in the
 * machine drawing's task colours, idle left blank, a time axis, and the playhead.
 * No React. Geometry and ticks are pure functions (tested); `drawTimeline` paints
 * only the lanes in view and asks the slice store for at most a few spans per
 * pixel, so its cost follows the canvas size, not the number of switches.
 */
import { tickStep } from 'd3';
import type { CpuId, SimTimeNs } from '../base/types';
import { cpuId } from '../base/types';
import type { SliceStore } from '../store/timeline';
import { JITTER_DASH, JITTER_STROKE, textOn, type TaskColors } from './colors';

/** Lane height bounds: lanes shrink to `MIN_LANE_PX` before the region scrolls. */
export const MAX_LANE_PX = 26;
export const MIN_LANE_PX = 6;
export const AXIS_PX = 26;
export const LABEL_PX = 66;
/** The tallest the region grows before it scrolls. */
export const MAX_VIEW_PX = 420;
const LANE_GAP_PX = 1;
/** Labels need this much height at 12 px type. */
const LABEL_MIN_PX = 15;
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

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
}

export function timelineGeometry(width: number, nCpus: number): TimelineGeometry {
  const lanes = Math.max(1, nCpus);
  const laneHeight = Math.max(MIN_LANE_PX, Math.min(MAX_LANE_PX, Math.floor((MAX_VIEW_PX - AXIS_PX) / lanes)));
  const contentHeight = AXIS_PX + lanes * laneHeight;
  let labelEvery = 1;
  while (labelEvery * laneHeight < LABEL_MIN_PX) labelEvery *= 2;
  const plotLeft = LABEL_PX;
  return {
    width,
    nCpus,
    laneHeight,
    labelEvery,
    contentHeight,
    viewHeight: Math.min(MAX_VIEW_PX, contentHeight),
    plotLeft,
    plotWidth: Math.max(1, width - plotLeft - 8),
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

/** The timeline's own colours (the page's theme): lane stripes, gutter, axis, text, the selected run's outline. */
export interface TimelinePalette {
  readonly laneA: string;
  readonly laneB: string;
  readonly gutter: string;
  readonly axisLine: string;
  readonly text: string;
  readonly selected: string;
}

export const LIGHT_PALETTE: TimelinePalette = { laneA: '#f8fafc', laneB: '#eef2f6', gutter: '#ffffff', axisLine: '#9aa5b1', text: '#334e68', selected: SELECTED_STROKE };
export const DARK_PALETTE: TimelinePalette = { laneA: '#1c2733', laneB: '#243240', gutter: '#151e27', axisLine: '#829ab1', text: '#d9e2ec', selected: '#f0f4f8' };

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
}

/** What a draw painted: the lanes and spans, and the middle of the widest task run (for tests). */
export interface DrawStats {
  /** Lanes painted (the ones in view). */
  readonly lanes: number;
  readonly spans: number;
  readonly sample: { readonly x: number; readonly y: number; readonly cpu: number } | undefined;
}

/** Paints one frame of the timeline into `ctx`, whose transform maps CSS pixels. */
export function drawTimeline(ctx: CanvasRenderingContext2D, frame: TimelineFrame): DrawStats {
  const { geometry, scrollTop, t0, t1, slices } = frame;
  const palette = frame.palette ?? LIGHT_PALETTE;
  const { laneHeight, plotLeft, plotWidth, width, viewHeight } = geometry;
  const pixelNs = (t1 - t0) / plotWidth;
  const xOf = (timeNs: number) => plotLeft + ((timeNs - t0) / (t1 - t0)) * plotWidth;
  ctx.clearRect(0, 0, width, viewHeight);
  ctx.font = FONT;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';

  const { first, last } = visibleLanes(geometry, scrollTop);
  const laneTop = (lane: number) => AXIS_PX + lane * laneHeight - scrollTop;
  const barHeight = Math.max(1, laneHeight - LANE_GAP_PX);
  let spans = 0;
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
        if (laneHeight >= LABEL_MIN_PX && x1 - x0 > 24) {
          const text = runLabel(ctx, frame.comm(span.pid), span.pid, x1 - x0 - 6);
          if (text !== undefined) {
            ctx.fillStyle = textOn(fill);
            ctx.fillText(text, x0 + 3, top + barHeight / 2);
          }
        }
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
    const middle = geometry.labelEvery === 1 ? top + barHeight / 2 : top + LABEL_MIN_PX / 2;
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
  return { lanes: last - first + 1, spans, sample };
}

/** `comm pid` if it fits in `maxWidth` pixels, else the pid alone, else nothing. */
function runLabel(ctx: CanvasRenderingContext2D, comm: string | undefined, runPid: number, maxWidth: number): string | undefined {
  const full = comm === undefined ? undefined : `${comm} ${runPid}`;
  if (full !== undefined && ctx.measureText(full).width <= maxWidth) return full;
  const short = String(runPid);
  return ctx.measureText(short).width <= maxWidth ? short : undefined;
}
