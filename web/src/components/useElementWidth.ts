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
