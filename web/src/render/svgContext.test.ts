import { describe, expect, it } from 'vitest';
import { SliceStore } from '../store/timeline';
import { taskColors } from './colors';
import { asContext, SvgRecorder } from './svgContext';
import { drawTimeline, timelineGeometry } from './timeline';
import type { SimTimeNs } from '../base/types';

describe('the timeline as SVG', () => {
  it('records the same runs the canvas gets, as rectangles with their task colours, with the axis and labels', () => {
    const slices = new SliceStore(2);
    // CPU 0 runs pid 1000 from 0 to 4 ms, then pid 1001; CPU 1 runs pid 1001 from 1 ms to 3 ms.
    slices.append(new Float64Array([0, 0, 1000, 1e6, 1, 1001, 3e6, 1, 0, 4e6, 0, 1001]));
    slices.setNow(6e6 as SimTimeNs);
    const tasks = [
      { pid: 1000, comm: 'a', group: 0, cpus: [0, 1], jitter: false },
      { pid: 1001, comm: 'b', group: 1, cpus: [0, 1], jitter: false },
    ];
    const colors = taskColors(tasks);
    const geometry = timelineGeometry(800, 2);
    const recorder = new SvgRecorder(geometry.width, geometry.contentHeight);
    const stats = drawTimeline(asContext(recorder), {
      geometry: { ...geometry, viewHeight: geometry.contentHeight },
      scrollTop: 0,
      t0: 0,
      t1: 6e6,
      nowNs: 6e6 as SimTimeNs,
      slices,
      colors,
      comm: (pid) => tasks.find((task) => task.pid === pid)?.comm,
      selectedPid: undefined,
    });
    const svg = recorder.toSvg();
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(stats.lanes).toBe(2);
    expect(stats.spans).toBe(3);
    // Each run is a rectangle in its task's colour.
    expect(svg.match(new RegExp(`fill="${colors.fill(1000)}"`, 'g'))?.length).toBeGreaterThanOrEqual(1);
    expect(svg.match(new RegExp(`fill="${colors.fill(1001)}"`, 'g'))?.length).toBeGreaterThanOrEqual(2);
    expect(svg).toContain('>CPU 0</text>');
    expect(svg).toContain('>CPU 1</text>');
    expect(svg).toMatch(/>\d+ ms<\/text>/);
    // The lanes are clipped below the axis, and every group is closed.
    expect(svg).toContain('clip-path="url(#clip0)"');
    expect(svg.match(/<g /g)?.length).toBe(svg.match(/<\/g>/g)?.length);
  });
});
