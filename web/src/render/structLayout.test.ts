import { describe, expect, it } from 'vitest';
import type { StructLayout } from '../engine/protocol';
import { COLD_FILL, fitName, heatScale, inkOn, luminance, structDrawing, wrapName, STRUCT_GEOMETRY, type Measure } from './structLayout';

/** Every letter 7 pixels wide at 12 px, proportionally at other sizes. */
const measure: Measure = (text, fontPx) => text.length * 7 * (fontPx / 12);
const at12 = (text: string) => measure(text, 12);

describe('names in boxes', () => {
  it('keeps a name that fits on one line', () => {
    expect(wrapName('vruntime', 60, 3, at12)).toEqual(['vruntime']);
  });

  it('breaks after underscores, and cuts with … a part too long for a line or past the last line, never making up a word', () => {
    expect(wrapName('prev_sum_exec_runtime', 63, 3, at12)).toEqual(['prev_sum_', 'exec_', 'runtime']);
    expect(wrapName('throttled_clock_pelt_time', 49, 3, at12)).toEqual(['thrott…']);
    expect(wrapName('nr_queued', 35, 3, at12)).toEqual(['nr_', 'queu…']);
    expect(wrapName('runtime_enabled', 56, 2, at12)).toEqual(['runtime_', 'enabled']);
    expect(wrapName('prev_sum_exec_runtime', 63, 2, at12)).toEqual(['prev_sum_', 'exec_…']);
    expect(wrapName('avg', 14, 3, at12)).toEqual([]);
    // Every wrapping reads as the name's own beginning: no hyphen, no letter out of place.
    for (const [name, width] of [['throttle_count', 30], ['h_nr_runnable', 28], ['nr_queued', 21], ['sched_delayed', 42]] as const) {
      const lines = wrapName(name, width, 3, at12);
      const shown = lines.join('');
      expect(name.startsWith(shown.replace(/…$/, '')), `${name}: ${lines.join(' | ')}`).toBe(true);
      expect(lines.every((line) => !line.endsWith('-'))).toBe(true);
    }
  });

  it('tries the smaller size before breaking a word', () => {
    // `deadline` is 56 px at 12 px and 49 px at 10.5 px.
    expect(fitName('deadline', 50, 40, measure)).toEqual({ lines: ['deadline'], fontPx: 10.5, lineHeight: 11.5 });
    expect(fitName('min_vruntime', 60, 40, measure)).toEqual({ lines: ['min_', 'vruntime'], fontPx: 12, lineHeight: 13 });
    const broken = fitName('runnable_weight', 30, 40, measure);
    expect(broken.fontPx).toBe(10.5);
    expect(broken.lines.join('').replace('…', '').length).toBeLessThan('runnable_weight'.length + 1);
  });
});

describe('a structure drawn as cache lines', () => {
  const layout: StructLayout = {
    name: 'cfs_rq',
    size: 192,
    lines: 3,
    fields: [
      { name: 'load', offset: 0, size: 16 },
      { name: 'curr', offset: 24, size: 8 },
      { name: 'straddler', offset: 56, size: 16 },
      { name: 'avg', offset: 128, size: 64 },
    ],
  };
  const width = STRUCT_GEOMETRY.gutter + 1 + 64 * 10;
  const drawing = structDrawing(layout, width, measure);

  it('makes each byte a column and each line a row', () => {
    expect(drawing.byteWidth).toBeCloseTo(10);
    expect(drawing.lines).toBe(3);
    const load = drawing.boxes.find((box) => box.field === 'load');
    expect(load?.x).toBe(STRUCT_GEOMETRY.gutter);
    expect(load?.width).toBeCloseTo(160);
    const avg = drawing.boxes.find((box) => box.field === 'avg');
    expect(avg?.line).toBe(2);
    expect(avg?.y).toBe(drawing.lineY(2));
  });

  it('splits a field across a line boundary into a box per line, each named', () => {
    const pieces = drawing.boxes.filter((box) => box.field === 'straddler');
    expect(pieces.map((box) => [box.line, Math.round(box.width)])).toEqual([
      [0, 80],
      [1, 80],
    ]);
    expect(pieces.every((box) => box.label.length > 0)).toBe(true);
  });

  it('leaves the bytes no field holds as holes, line by line', () => {
    expect(drawing.holes.map((hole) => [hole.offset, hole.size, hole.line])).toEqual([
      [16, 8, 0],
      [32, 24, 0],
      [72, 56, 1],
    ]);
  });
});

describe('the heat scale', () => {
  const scale = heatScale(1_000_000);

  it('paints untouched fields grey and touched ones from yellow to dark red, hotter darker', () => {
    expect(scale.fill(0)).toBe(COLD_FILL);
    expect(luminance(scale.fill(1))).toBeGreaterThan(luminance(scale.fill(500_000)));
    expect(luminance(scale.fill(500_000))).toBeGreaterThan(luminance(scale.fill(1_000_000)));
    // The coolest touched colour is not the grey of an untouched field, nor white.
    expect(scale.fill(1)).not.toBe(COLD_FILL);
    expect(luminance(scale.fill(1))).toBeLessThan(0.95);
  });

  it('writes names in whichever of black and white reads better', () => {
    expect(scale.ink(1_000_000)).toBe('#ffffff');
    expect(scale.ink(1)).toBe('#111111');
    expect(inkOn('#fd8d3c')).toBe('#111111');
  });

  it('labels the legend in calls from 0 to the hottest', () => {
    expect(scale.ticks[0]).toEqual({ at: 0, label: '0' });
    expect(scale.ticks.at(-1)?.at).toBe(1);
    expect(scale.ticks.at(-1)?.label).toBe('1M');
  });
});
