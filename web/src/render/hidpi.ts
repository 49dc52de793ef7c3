/**
 * A canvas sized for the screen's pixel ratio: its backing store is `width` x
 * `height` CSS pixels times the ratio (resized only when that changes), and the
 * returned context draws in CSS pixels. Undefined when there is no 2D context.
 */
export function hidpiContext(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D | undefined {
  const ratio = window.devicePixelRatio || 1;
  const pixelWidth = Math.round(width * ratio);
  const pixelHeight = Math.round(height * ratio);
  if (canvas.width !== pixelWidth || canvas.height !== pixelHeight) {
    canvas.width = pixelWidth;
    canvas.height = pixelHeight;
  }
  const ctx = canvas.getContext('2d');
  if (!ctx) return undefined;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  return ctx;
}
