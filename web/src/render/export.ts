/**
 * Drawings as files: the machine's SVG as a standalone document (the page's CSS
 * written into each element, since the file is opened without it) and as PNG, and
 * a canvas as PNG. No React.
 */

/** The presentation properties the stylesheet sets on the machine drawing. */
const STYLED = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'font-variant-numeric',
  'text-anchor',
  'dominant-baseline',
  'filter',
] as const;

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * The SVG element as a standalone SVG file: a copy with each element's computed
 * style written in as attributes, a white background, and its size.
 */
export function serializeSvg(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const originals = [svg, ...Array.from(svg.querySelectorAll('*'))];
  const copies = [copy, ...Array.from(copy.querySelectorAll('*'))];
  originals.forEach((original, index) => {
    const target = copies[index];
    if (!target) return;
    const style = getComputedStyle(original);
    const inline: string[] = [];
    for (const property of STYLED) {
      const value = style.getPropertyValue(property);
      if (value !== '') inline.push(`${property}: ${value}`);
    }
    const own = target.getAttribute('style');
    target.setAttribute('style', [...inline, ...(own ? [own] : [])].join('; '));
  });
  const { width, height } = svgSize(svg);
  copy.setAttribute('xmlns', SVG_NS);
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  const background = document.createElementNS(SVG_NS, 'rect');
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', '#ffffff');
  copy.insertBefore(background, copy.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}

/** The drawing's size in CSS pixels: its `viewBox`, else its box on the page. */
export function svgSize(svg: SVGSVGElement): { readonly width: number; readonly height: number } {
  const box = svg.viewBox.baseVal;
  if (box && box.width > 0 && box.height > 0) return { width: box.width, height: box.height };
  const rect = svg.getBoundingClientRect();
  return { width: Math.max(1, Math.round(rect.width)), height: Math.max(1, Math.round(rect.height)) };
}

export function canvasToPng(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('the canvas could not be encoded as PNG'))), 'image/png');
  });
}

/** A standalone SVG document drawn onto a white canvas at `scale` and encoded as PNG. */
export async function svgToPng(svgText: string, width: number, height: number, scale: number): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas to draw the machine on');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await canvasToPng(canvas);
  } finally {
    URL.revokeObjectURL(url);
  }
}
