import { describe, expect, it } from 'vitest';
import type { SimTimeNs } from '../base/types';
import { SliceStore } from '../store/timeline';
import { taskColors } from './colors';
import { asContext, SvgRecorder } from './svgContext';
import {
  AXIS_PX,
  DARK_PALETTE,
  drawTimeline,
  formatSpan,
  hitTest,
  MAX_LANE_PX,
  MAX_VIEW_PX,
  MIN_LANE_PX,
  timelineGeometry,
  timeTicks,
  visibleLanes,
  waitBandHeight,
  waitBandMax,
  waitRects,
} from './timeline';

describe('timeline geometry', () => {
  it('gives 8 CPUs tall lanes, each labelled, and no scrolling', () => {
    const geometry = timelineGeometry(800, 8);
    expect(geometry.laneHeight).toBe(MAX_LANE_PX);
    expect(geometry.labelEvery).toBe(1);
    expect(geometry.viewHeight).toBe(geometry.contentHeight);
    expect(geometry.contentHeight).toBe(AXIS_PX + 8 * MAX_LANE_PX);
  });

  it('shrinks 512 lanes to the minimum height and scrolls, labelling every few lanes', () => {
    const geometry = timelineGeometry(800, 512);
    expect(geometry.laneHeight).toBe(MIN_LANE_PX);
    expect(geometry.viewHeight).toBe(MAX_VIEW_PX);
    expect(geometry.contentHeight).toBe(AXIS_PX + 512 * MIN_LANE_PX);
    expect(geometry.labelEvery * geometry.laneHeight).toBeGreaterThanOrEqual(15);
    // Scrolled by 100 lanes, the first visible lane is CPU 100 and only a view's worth is drawn.
    const { first, last } = visibleLanes(geometry, 100 * MIN_LANE_PX);
    expect(first).toBe(100);
    expect(last - first).toBeLessThanOrEqual(Math.ceil((MAX_VIEW_PX - AXIS_PX) / MIN_LANE_PX));
  });

  it('maps a point to a CPU and a time', () => {
    const geometry = timelineGeometry(800, 8);
    const x = geometry.plotLeft + geometry.plotWidth / 4;
    expect(hitTest(geometry, 0, 1000, 2000, x, AXIS_PX + 2.5 * MAX_LANE_PX)).toEqual({ cpu: 2, timeNs: 1250 });
    expect(hitTest(geometry, 0, 1000, 2000, x, AXIS_PX - 1)).toBeUndefined();
    expect(hitTest(geometry, 0, 1000, 2000, 5, AXIS_PX + 10)).toBeUndefined();
    expect(hitTest(geometry, 0, 1000, 2000, x, AXIS_PX + 8 * MAX_LANE_PX + 1)).toBeUndefined();
  });
});

describe('timeTicks', () => {
  it('labels ticks in the unit of their step', () => {
    expect(timeTicks(20e6, 60e6, 700).map((tick) => tick.label)).toEqual(['20 ms', '25 ms', '30 ms', '35 ms', '40 ms', '45 ms', '50 ms', '55 ms', '60 ms']);
    expect(timeTicks(1_000, 3_500, 300).map((tick) => tick.label)).toEqual(['1 us', '2 us', '3 us']);
    expect(timeTicks(0, 2e9, 700).map((tick) => tick.label)).toEqual(['0.0 s', '0.5 s', '1.0 s', '1.5 s', '2.0 s']);
    expect(timeTicks(20.0e6, 20.8e6, 700).map((tick) => tick.label)[1]).toBe('20.1 ms');
    expect(timeTicks(5, 5, 700)).toEqual([]);
  });
});

describe('the wait band', () => {
  it('grows a third of its height per waiting task up to 3, and shows any wait as at least a pixel', () => {
    const bar = MAX_LANE_PX - 1;
    const full = waitBandMax(bar);
    expect(full).toBeGreaterThan(bar / 2);
    expect(full).toBeLessThan(bar);
    expect(waitBandHeight(0, bar)).toBe(0);
    expect(waitBandHeight(1, bar)).toBe(Math.round(full / 3));
    expect(waitBandHeight(2, bar)).toBe(Math.round((2 * full) / 3));
    expect(waitBandHeight(3, bar)).toBe(full);
    expect(waitBandHeight(40, bar)).toBe(full);
    expect(waitBandHeight(0.01, bar)).toBe(1);
    // The thinnest lanes still tell 1, 2 and 3+ apart.
    const thin = MIN_LANE_PX - 1;
    expect(new Set([1, 2, 3].map((waiting) => waitBandHeight(waiting, thin))).size).toBe(3);
  });

  it('merges touching spans of one height into one rectangle, at least a pixel wide', () => {
    const xOf = (timeNs: number) => timeNs / 10;
    const rects = waitRects(
      [
        { start: 0, end: 100, waiting: 1 },
        { start: 100, end: 200, waiting: 1 },
        { start: 200, end: 300, waiting: 3 },
        { start: 300, end: 301, waiting: 5 },
        { start: 500, end: 600, waiting: 1 },
      ],
      xOf,
      MAX_LANE_PX - 1,
    );
    expect(rects).toEqual([
      { x0: 0, x1: 20, height: waitBandHeight(1, MAX_LANE_PX - 1) },
      // The 0.1 px span is widened to a pixel.
      { x0: 20, x1: 31, height: waitBandMax(MAX_LANE_PX - 1) },
      { x0: 50, x1: 60, height: waitBandHeight(1, MAX_LANE_PX - 1) },
    ]);
  });

  it('is drawn where tasks wait and counted in the draw stats, with the brushed window on top', () => {
    const slices = new SliceStore(2);
    slices.append([0, 0, 1000, 0, 1, 1001]);
    // CPU 0: one task waits from 1 ms to 2 ms, three from 2 ms to 3 ms; CPU 1: nobody waits.
    slices.appendWaits([1e6, 0, 1, 2e6, 0, 3, 3e6, 0, 0]);
    slices.setNow(4e6 as SimTimeNs);
    const tasks = [
      { pid: 1000, comm: 'a', group: 0, cpus: [0, 1], jitter: false },
      { pid: 1001, comm: 'b', group: 0, cpus: [0, 1], jitter: false },
    ];
    const geometry = timelineGeometry(800, 2);
    const draw = (brush?: { fromNs: number; toNs: number }) => {
      const recorder = new SvgRecorder(geometry.width, geometry.contentHeight);
      const stats = drawTimeline(asContext(recorder), {
        geometry,
        scrollTop: 0,
        t0: 0,
        t1: 4e6,
        nowNs: 4e6 as SimTimeNs,
        slices,
        colors: taskColors(tasks),
        comm: () => undefined,
        selectedPid: undefined,
        palette: DARK_PALETTE,
        brush,
      });
      return { stats, svg: recorder.toSvg() };
    };
    const { stats, svg } = draw();
    expect(stats.waitSpans).toBe(2);
    expect(stats.waitLanes).toBe(1);
    expect(stats.t0).toBe(0);
    expect(stats.t1).toBe(4e6);
    // The band's ground, its hatching and its top line in the dark palette's colours.
    expect(svg).toContain(`fill="${DARK_PALETTE.waitGround}"`);
    expect(svg).toContain(`stroke="${DARK_PALETTE.waitHatch}"`);
    expect(svg).not.toContain(DARK_PALETTE.brushFill);
    // Every clip group (the lanes', the band's) is closed.
    expect(svg.match(/<g /g)?.length).toBe(svg.match(/<\/g>/g)?.length);
    const brushed = draw({ fromNs: 3e6, toNs: 1e6 }).svg;
    expect(brushed).toContain(`fill="${DARK_PALETTE.brushFill}"`);
    expect(brushed).toContain('>2.00 ms</text>');
  });
});

describe('the wait band on thin lanes', () => {
  it('is filled solid where hatching has no room: on thin lanes, and for rectangles a few pixels wide', () => {
    const draw = (nCpus: number, waits: number[]) => {
      const slices = new SliceStore(nCpus);
      slices.appendWaits(waits);
      slices.setNow(4e6 as SimTimeNs);
      const geometry = timelineGeometry(800, nCpus);
      const recorder = new SvgRecorder(geometry.width, geometry.contentHeight);
      const stats = drawTimeline(asContext(recorder), {
        geometry,
        scrollTop: 0,
        t0: 0,
        t1: 4e6,
        nowNs: 4e6 as SimTimeNs,
        slices,
        colors: taskColors([]),
        comm: () => undefined,
        selectedPid: undefined,
      });
      const svg = recorder.toSvg();
      return { stats, clips: svg.match(/<clipPath/g)?.length ?? 0, solid: svg.match(/<path [^>]*fill="#000000"\/>/g)?.length ?? 0 };
    };
    // 8 CPUs, a wait of 1 ms (about 180 px): hatched, in a clip of its own beside the lanes'.
    expect(draw(8, [1e6, 0, 2, 2e6, 0, 0])).toEqual({ stats: expect.objectContaining({ waitSpans: 1 }) as unknown, clips: 2, solid: 0 });
    // 8 CPUs, a wait of 5 us (under a pixel): filled solid, no hatching.
    expect(draw(8, [1e6, 0, 2, 1.005e6, 0, 0])).toEqual({ stats: expect.objectContaining({ waitSpans: 1 }) as unknown, clips: 1, solid: 1 });
    // 512 CPUs, 6 px lanes: solid even when wide.
    expect(draw(512, [1e6, 0, 2, 2e6, 0, 0])).toEqual({ stats: expect.objectContaining({ waitSpans: 1 }) as unknown, clips: 1, solid: 1 });
  });
});

describe('formatSpan', () => {
  it('writes a window in the unit that suits it', () => {
    expect(formatSpan(840_000)).toBe('840 us');
    expect(formatSpan(12.5e6)).toBe('12.5 ms');
    expect(formatSpan(1.2e9)).toBe('1.20 s');
    expect(formatSpan(500)).toBe('500 ns');
  });
});
