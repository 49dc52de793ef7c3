/**
 * A recording stand-in for the part of `CanvasRenderingContext2D` the timeline
 * draws with, writing SVG elements instead of pixels: the timeline's own drawing
 * code (`drawTimeline`) then exports as a vector file, the same picture with
 * one renderer. Text is measured with a real canvas so labels fit as on screen.
 * Covers rectangles, straight-line paths, text, dashes, one clip per save.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function num(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

interface DrawState {
  fillStyle: string;
  strokeStyle: string;
  lineWidth: number;
  font: string;
  textAlign: CanvasTextAlign;
  textBaseline: CanvasTextBaseline;
  lineDash: number[];
  /** Clip groups opened since the matching `save`. */
  openGroups: number;
}

export class SvgRecorder {
  fillStyle = '#000000';
  strokeStyle = '#000000';
  lineWidth = 1;
  font = '10px sans-serif';
  textAlign: CanvasTextAlign = 'start';
  textBaseline: CanvasTextBaseline = 'alphabetic';
  private lineDash: number[] = [];
  private readonly parts: string[] = [];
  private readonly defs: string[] = [];
  private path = '';
  private readonly stack: DrawState[] = [];
  private openGroups = 0;
  private readonly measurer: CanvasRenderingContext2D | null;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.measurer = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  }

  /** The drawing as a standalone SVG document on white. */
  toSvg(): string {
    const closing = '</g>'.repeat(this.openGroups);
    return [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<svg xmlns="${SVG_NS}" width="${num(this.width)}" height="${num(this.height)}" viewBox="0 0 ${num(this.width)} ${num(this.height)}">`,
      `<defs>${this.defs.join('')}</defs>`,
      `<rect width="100%" height="100%" fill="#ffffff"/>`,
      ...this.parts,
      closing,
      '</svg>',
      '',
    ].join('\n');
  }

  save(): void {
    this.stack.push({
      fillStyle: this.fillStyle,
      strokeStyle: this.strokeStyle,
      lineWidth: this.lineWidth,
      font: this.font,
      textAlign: this.textAlign,
      textBaseline: this.textBaseline,
      lineDash: this.lineDash,
      openGroups: this.openGroups,
    });
  }

  restore(): void {
    const state = this.stack.pop();
    if (!state) return;
    while (this.openGroups > state.openGroups) {
      this.parts.push('</g>');
      this.openGroups -= 1;
    }
    this.fillStyle = state.fillStyle;
    this.strokeStyle = state.strokeStyle;
    this.lineWidth = state.lineWidth;
    this.font = state.font;
    this.textAlign = state.textAlign;
    this.textBaseline = state.textBaseline;
    this.lineDash = state.lineDash;
  }

  setTransform(): void {
    // The recorder draws in CSS pixels; the canvas's device-pixel scale does not apply.
  }

  setLineDash(dash: number[]): void {
    this.lineDash = [...dash];
  }

  clearRect(): void {
    // The document starts white; the timeline clears only before it draws.
  }

  beginPath(): void {
    this.path = '';
  }

  moveTo(x: number, y: number): void {
    this.path += `M${num(x)} ${num(y)}`;
  }

  lineTo(x: number, y: number): void {
    this.path += `L${num(x)} ${num(y)}`;
  }

  rect(x: number, y: number, w: number, h: number): void {
    this.path += `M${num(x)} ${num(y)}h${num(w)}v${num(h)}h${num(-w)}Z`;
  }

  closePath(): void {
    this.path += 'Z';
  }

  clip(): void {
    const id = `clip${this.defs.length}`;
    this.defs.push(`<clipPath id="${id}"><path d="${this.path}"/></clipPath>`);
    this.parts.push(`<g clip-path="url(#${id})">`);
    this.openGroups += 1;
  }

  fill(): void {
    if (this.path !== '') this.parts.push(`<path d="${this.path}" fill="${escapeXml(this.fillStyle)}"/>`);
  }

  stroke(): void {
    if (this.path !== '') this.parts.push(`<path d="${this.path}" fill="none"${this.strokeAttributes()}/>`);
  }

  fillRect(x: number, y: number, w: number, h: number): void {
    this.parts.push(`<rect x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}" fill="${escapeXml(this.fillStyle)}"/>`);
  }

  strokeRect(x: number, y: number, w: number, h: number): void {
    this.parts.push(`<rect x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}" fill="none"${this.strokeAttributes()}/>`);
  }

  fillText(text: string, x: number, y: number): void {
    const anchor = this.textAlign === 'center' ? 'middle' : this.textAlign === 'right' || this.textAlign === 'end' ? 'end' : 'start';
    const baseline = this.textBaseline === 'middle' ? 'central' : this.textBaseline === 'top' ? 'hanging' : 'alphabetic';
    this.parts.push(
      `<text x="${num(x)}" y="${num(y)}" fill="${escapeXml(this.fillStyle)}" style="font: ${escapeXml(this.font)}" text-anchor="${anchor}" dominant-baseline="${baseline}">${escapeXml(text)}</text>`,
    );
  }

  measureText(text: string): { width: number } {
    if (this.measurer) {
      this.measurer.font = this.font;
      return { width: this.measurer.measureText(text).width };
    }
    // Without a canvas: about 0.6 em per character.
    const size = Number(/(\d+(?:\.\d+)?)px/.exec(this.font)?.[1] ?? 12);
    return { width: text.length * size * 0.6 };
  }

  private strokeAttributes(): string {
    const dash = this.lineDash.length > 0 ? ` stroke-dasharray="${this.lineDash.join(' ')}"` : '';
    return ` stroke="${escapeXml(this.strokeStyle)}" stroke-width="${num(this.lineWidth)}"${dash}`;
  }
}

/** The recorder as the canvas context the drawing code takes (it uses only what the recorder has). */
export function asContext(recorder: SvgRecorder): CanvasRenderingContext2D {
  return recorder as unknown as CanvasRenderingContext2D;
}
