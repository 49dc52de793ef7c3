import { describe, expect, it } from 'vitest';
import { cursorAfterKey } from './chartCursor';

describe('a chart read-out point moved by keys', () => {
  it('starts from the last point, steps, pages by a tenth, and stops at the ends', () => {
    expect(cursorAfterKey('ArrowLeft', undefined, 50)).toEqual({ to: 48 });
    expect(cursorAfterKey('ArrowRight', undefined, 50)).toEqual({ to: 49 });
    expect(cursorAfterKey('ArrowLeft', 0, 50)).toEqual({ to: 0 });
    expect(cursorAfterKey('PageUp', 20, 50)).toEqual({ to: 15 });
    expect(cursorAfterKey('PageDown', 47, 50)).toEqual({ to: 49 });
    expect(cursorAfterKey('Home', 20, 50)).toEqual({ to: 0 });
    expect(cursorAfterKey('End', 3, 50)).toEqual({ to: 49 });
    // A point past the end (the chart shrank) counts as the last.
    expect(cursorAfterKey('ArrowLeft', 80, 50)).toEqual({ to: 48 });
  });

  it('lets go on Escape, and leaves other keys, and charts without points, to the page', () => {
    expect(cursorAfterKey('Escape', 4, 50)).toEqual({ to: undefined });
    expect(cursorAfterKey('a', 4, 50)).toBeUndefined();
    expect(cursorAfterKey(' ', 4, 50)).toBeUndefined();
    expect(cursorAfterKey('ArrowLeft', undefined, 0)).toBeUndefined();
  });
});
