import { describe, expect, it } from 'vitest';
import { distinctLabels, lineColumnOf } from './text';

describe('text helpers', () => {
  it('number the labels that more than one group has, in order, and leave the others', () => {
    expect(distinctLabels(['kworker', 'a:b c-d', 'Web Content', 'a:b c-d'])).toEqual(['kworker', 'a:b c-d (1)', 'Web Content', 'a:b c-d (2)']);
    expect(distinctLabels([])).toEqual([]);
  });

  it('give the 1-based line and column of an offset', () => {
    expect(lineColumnOf('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnOf('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});
