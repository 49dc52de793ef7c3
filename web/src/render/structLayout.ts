/**
 * The struct-layout lab's drawing: a structure as rows of 64-byte cache lines,
 * each field a box as wide as its bytes (split where it straddles a line), the
 * holes between fields left blank, names wrapped at their underscores to fit;
 * and the heat colour scale (a sequential one that stays visible on a
 * projector: its coolest end is a clear yellow, not white; names in black or
 * white, whichever contrasts more). Pure geometry and colours: the component
 * draws them. No React.
 */
import { format, interpolateYlOrRd, rgb, scaleLinear } from 'd3';
import type { StructLayout } from '../engine/protocol';
import { LINE_BYTES } from '../store/structLayout';

/** The width of a text in pixels at the drawing's font, `fontPx` high. */
export type Measure = (text: string, fontPx: number) => number;

/** A name's type sizes, tried in turn: the smaller one only when the larger would have to break a word. */
export const NAME_SIZES: readonly { readonly fontPx: number; readonly lineHeight: number }[] = [
  { fontPx: 12, lineHeight: 13 },
  { fontPx: 10.5, lineHeight: 11.5 },
];

export const STRUCT_GEOMETRY = {
  /** Left of the lines: each line's number, and the mark of a highlighted line. */
  gutter: 30,
  /** Above the lines: the byte ruler. */
  ruler: 18,
  /** A line's row: three lines of a name where bytes are narrow, two where they are wide. */
  rowHeight: 46,
  wideRowHeight: 36,
  /** Bytes at least this wide (pixels) make a wide drawing. */
  wideByte: 12,
  rowGap: 6,
  labelPad: 3,
} as const;

/** A field's box on one line (a field across a line boundary has one per line). */
export interface FieldBox {
  readonly field: string;
  readonly line: number;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** The name as it fits the box, one entry per text line; empty when it does not fit (its tooltip says it). */
  readonly label: readonly string[];
  readonly fontPx: number;
  readonly lineHeight: number;
}

/** Bytes no field holds (padding before an aligned field, or at the end), on one line. */
export interface HoleBox {
  readonly offset: number;
  readonly size: number;
  readonly line: number;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface StructDrawing {
  readonly width: number;
  readonly height: number;
  readonly byteWidth: number;
  readonly rowHeight: number;
  readonly lines: number;
  readonly boxes: readonly FieldBox[];
  readonly holes: readonly HoleBox[];
  /** The top of each line's row. */
  lineY(line: number): number;
}

/**
 * A name wrapped to `maxWidth`, at most `maxLines` lines: broken after its
 * underscores (`sum_` / `exec_` / `runtime`); a part too long for a line, or a
 * name longer than the lines, cut with `…` there. Every line shows the name's own
 * letters (no hyphen makes up a name that does not exist); the tooltip has it whole.
 * Empty when not even two letters would show. `measure` is at the font size meant.
 */
export function wrapName(name: string, maxWidth: number, maxLines: number, measure: (text: string) => number): readonly string[] {
  if (maxLines < 1 || measure(`${name.slice(0, 2)}…`) > maxWidth) return [];
  if (measure(name) <= maxWidth) return [name];
  const parts = name.match(/[^_]+_*|_+/g) ?? [name];
  const lines: string[] = [];
  /** `text` cut to fit with `…`. */
  const cut = (text: string) => {
    let kept = text;
    while (kept.length > 1 && measure(`${kept}…`) > maxWidth) kept = kept.slice(0, -1);
    return `${kept}…`;
  };
  let currentLine = '';
  for (const [index, part] of parts.entries()) {
    if (currentLine !== '' && measure(currentLine + part) <= maxWidth) {
      currentLine += part;
      continue;
    }
    if (currentLine !== '') lines.push(currentLine);
    currentLine = part;
    // A part wider than a line ends the name there, cut: `thrott…`, not `thrott-` / `led`.
    if (measure(part) > maxWidth) {
      if (lines.length >= maxLines) break;
      lines.push(cut(index === parts.length - 1 ? part : `${part}${parts.slice(index + 1).join('')}`));
      currentLine = '';
      break;
    }
  }
  if (currentLine !== '') lines.push(currentLine);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = cut(kept[maxLines - 1] ?? '');
  return kept;
}

/** Whether every line of a wrapping is a whole part of the name (no word broken, nothing cut). */
function wholeParts(name: string, lines: readonly string[]): boolean {
  return lines.length > 0 && lines.join('') === name && lines.every((line) => line.endsWith('_') || name.endsWith(line));
}

/**
 * A name in a box: on one line at the larger size, else the smaller; else wrapped
 * at its underscores, larger size first; else broken and cut at the smaller size.
 */
export function fitName(name: string, maxWidth: number, maxHeight: number, measure: Measure): { readonly lines: readonly string[]; readonly fontPx: number; readonly lineHeight: number } {
  for (const size of NAME_SIZES) if (measure(name, size.fontPx) <= maxWidth) return { lines: [name], ...size };
  for (const size of NAME_SIZES) {
    const lines = wrapName(name, maxWidth, Math.floor(maxHeight / size.lineHeight), (text) => measure(text, size.fontPx));
    if (wholeParts(name, lines) && lines.every((line) => measure(line, size.fontPx) <= maxWidth)) return { lines, ...size };
  }
  const smallest = NAME_SIZES[NAME_SIZES.length - 1] ?? { fontPx: 10.5, lineHeight: 11.5 };
  return { lines: wrapName(name, maxWidth, Math.floor(maxHeight / smallest.lineHeight), (text) => measure(text, smallest.fontPx)), ...smallest };
}

/** Where every field and hole of a layout goes in a drawing `width` pixels wide. */
export function structDrawing(layout: StructLayout, width: number, measure: Measure): StructDrawing {
  const { gutter, ruler, rowGap, labelPad } = STRUCT_GEOMETRY;
  const byteWidth = Math.max(1, (width - gutter - 1) / LINE_BYTES);
  const rowHeight = byteWidth >= STRUCT_GEOMETRY.wideByte ? STRUCT_GEOMETRY.wideRowHeight : STRUCT_GEOMETRY.rowHeight;
  const lines = Math.max(layout.lines, Math.ceil(layout.size / LINE_BYTES));
  const lineY = (line: number) => ruler + line * (rowHeight + rowGap);
  const boxes: FieldBox[] = [];
  for (const field of layout.fields) {
    const pieces: { line: number; start: number; end: number }[] = [];
    for (let at = field.offset; at < field.offset + field.size; ) {
      const line = Math.floor(at / LINE_BYTES);
      const end = Math.min(field.offset + field.size, (line + 1) * LINE_BYTES);
      pieces.push({ line, start: at, end });
      at = end;
    }
    // Each piece of a field across a line boundary carries its name, so no box is left nameless.
    pieces.forEach((piece) => {
      const x = gutter + (piece.start % LINE_BYTES) * byteWidth;
      const boxWidth = (piece.end - piece.start) * byteWidth;
      const name = fitName(field.name, boxWidth - 2 * labelPad, rowHeight - 2 * labelPad, measure);
      boxes.push({
        field: field.name,
        line: piece.line,
        x,
        y: lineY(piece.line),
        width: boxWidth,
        height: rowHeight,
        label: name.lines,
        fontPx: name.fontPx ?? 12,
        lineHeight: name.lineHeight ?? 13,
      });
    });
  }
  const holes: HoleBox[] = [];
  const sorted = [...layout.fields].sort((a, b) => a.offset - b.offset);
  let covered = 0;
  const addHole = (from: number, to: number) => {
    for (let at = from; at < to; ) {
      const line = Math.floor(at / LINE_BYTES);
      const end = Math.min(to, (line + 1) * LINE_BYTES);
      holes.push({ offset: at, size: end - at, line, x: gutter + (at % LINE_BYTES) * byteWidth, y: lineY(line), width: (end - at) * byteWidth, height: rowHeight });
      at = end;
    }
  };
  for (const field of sorted) {
    if (field.offset > covered) addHole(covered, field.offset);
    covered = Math.max(covered, field.offset + field.size);
  }
  const end = Math.max(layout.size, lines * LINE_BYTES);
  if (covered < end) addHole(covered, end);
  return { width, height: lineY(lines) - rowGap + 1, byteWidth, rowHeight, lines, boxes, holes, lineY };
}

/** A field no operation touched in the run so far. */
export const COLD_FILL = '#e4e9f0';

/** The heat scale's coolest colour is this far along YlOrRd: a yellow a projector still shows. */
const COOLEST = 0.14;

export interface HeatScale {
  /** The fill for a field's heat (calls); `COLD_FILL` for 0. */
  fill(heat: number): string;
  /** Black or white text, whichever contrasts more with that fill. */
  ink(heat: number): string;
  /** The legend's stops and labelled ticks, as fractions of its width. */
  readonly stops: readonly { readonly at: number; readonly color: string }[];
  readonly ticks: readonly { readonly at: number; readonly label: string }[];
}

/** WCAG relative luminance of a colour. */
export function luminance(color: string): number {
  const { r, g, b } = rgb(color);
  const channel = (value: number) => {
    const v = value / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** The text colour, black or white, with the higher contrast on `fill`. */
export function inkOn(fill: string): string {
  const light = luminance(fill);
  return (1.05) / (light + 0.05) > (light + 0.05) / 0.05 ? '#ffffff' : '#111111';
}

/**
 * A linear scale from no calls to the hottest field's: the hot fields the
 * reordering gathers (hundreds of thousands of calls) are told apart from the
 * lukewarm ones, and a field touched only by rare operations is a pale yellow,
 * still distinct from an untouched field's grey and a hole's hatching.
 */
export function heatScale(maxHeat: number): HeatScale {
  const high = Math.max(1, maxHeat);
  const position = scaleLinear().domain([0, high]).range([0, 1]).clamp(true);
  const colorAt = (t: number) => interpolateYlOrRd(COOLEST + (1 - COOLEST) * t);
  const stops = Array.from({ length: 9 }, (_, index) => ({ at: index / 8, color: colorAt(index / 8) }));
  const label = format('.2~s');
  const ticks = position.ticks(4).map((value) => ({ at: position(value), label: label(value) }));
  return {
    fill: (heat) => (heat > 0 ? colorAt(position(heat)) : COLD_FILL),
    ink: (heat) => inkOn(heat > 0 ? colorAt(position(heat)) : COLD_FILL),
    stops,
    ticks,
  };
}
