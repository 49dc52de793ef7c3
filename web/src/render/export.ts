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
  'stroke-linejoin',
  // Text drawn with a halo (its stroke under its fill) would lose its fill to the stroke without this.
  'paint-order',
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
  const { width, height } = svgSize(svg);
  // Written as text from the live drawing, never through the DOM: setting style
  // attributes on any element of this page would be an inline style, which its
  // Content-Security-Policy refuses.
  const body = Array.from(svg.childNodes, (child) => markup(child)).join('');
  const attributes = attributesOf(svg, { xmlns: SVG_NS, width: String(width), height: String(height) });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg${attributes}><rect width="100%" height="100%" fill="#ffffff"/>${body}</svg>\n`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** An element's attributes as markup, its computed presentation style written in, `extra` winning. */
function attributesOf(element: Element, extra: Readonly<Record<string, string>> = {}): string {
  const style = getComputedStyle(element);
  const inline: string[] = [];
  for (const property of STYLED) {
    const value = style.getPropertyValue(property);
    if (value !== '') inline.push(`${property}: ${value}`);
  }
  const own = element.getAttribute('style');
  const values = new Map<string, string>();
  for (const attribute of Array.from(element.attributes)) {
    if (attribute.name !== 'style' && !(attribute.name in extra)) values.set(attribute.name, attribute.value);
  }
  for (const [name, value] of Object.entries(extra)) values.set(name, value);
  values.set('style', [...inline, ...(own ? [own] : [])].join('; '));
  return Array.from(values, ([name, value]) => ` ${name}="${escapeXml(value)}"`).join('');
}

function markup(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return escapeXml(node.textContent ?? '');
  if (node.nodeType !== Node.ELEMENT_NODE) return '';
  const element = node as Element;
  // A canvas in the drawing (a large machine's cells) goes into the file as the image it shows.
  const canvas = element.tagName === 'foreignObject' ? element.querySelector('canvas') : null;
  if (canvas) {
    const size = ['x', 'y', 'width', 'height'].map((name) => ` ${name}="${escapeXml(element.getAttribute(name) ?? '0')}"`).join('');
    return `<image${size} preserveAspectRatio="none" href="${canvas.toDataURL('image/png')}"/>`;
  }
  const children = Array.from(element.childNodes, (child) => markup(child)).join('');
  return `<${element.tagName}${attributesOf(element)}>${children}</${element.tagName}>`;
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
