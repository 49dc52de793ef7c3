import { useEffect, useState, type RefObject } from 'react';

/** The width of an element in CSS pixels (at least 320), following its resizes. */
export function useElementWidth(ref: RefObject<HTMLElement | null>, initial = 800): number {
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const host = ref.current;
    if (!host) return;
    const observer = new ResizeObserver((entries) => {
      const entry = entries[0];
      if (entry) setWidth(Math.max(320, Math.floor(entry.contentRect.width)));
    });
    observer.observe(host);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/** The window's height in CSS pixels, following its resizes. */
export function useWindowHeight(): number {
  const [height, setHeight] = useState(() => (typeof window === 'undefined' ? 800 : window.innerHeight));
  useEffect(() => {
    const changed = () => setHeight(window.innerHeight);
    window.addEventListener('resize', changed);
    return () => window.removeEventListener('resize', changed);
  }, []);
  return height;
}
