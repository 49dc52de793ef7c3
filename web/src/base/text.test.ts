import { describe, expect, it } from 'vitest';
import { distinctLabels, lineColumnOf, textPreview } from './text';

describe('text helpers', () => {
  it('number the labels that more than one group has, in order, and leave the others', () => {
    expect(distinctLabels(['kworker', 'a:b c-d', 'Web Content', 'a:b c-d'])).toEqual(['kworker', 'a:b c-d (1)', 'Web Content', 'a:b c-d (2)']);
    expect(distinctLabels([])).toEqual([]);
  });

  it('give the 1-based line and column of an offset', () => {
    expect(lineColumnOf('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnOf('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });

  it('show a long text\'s start only: cut before a space near the limit, at the limit in one long word, never inside a surrogate pair', () => {
    // Short enough: whole.
    expect(textPreview('a few words', 11)).toEqual({ shown: 'a few words', cut: false, shownChars: 11, totalChars: 11 });
    // Words: the cut comes before a space, and no word is cut in two.
    const words = 'the scheduler places each woken task '.repeat(1000);
    const preview = textPreview(words, 20_000);
    expect(preview.cut).toBe(true);
    expect(preview.shown.length).toBeLessThanOrEqual(20_000);
    expect(preview.shown.length).toBeGreaterThan(20_000 - 40);
    expect(words.startsWith(preview.shown)).toBe(true);
    expect(words[preview.shown.length]).toBe(' ');
    expect(preview).toMatchObject({ shownChars: preview.shown.length, totalChars: words.length });
    // The cut falls exactly before a space: that word is kept.
    expect(textPreview('abc def', 3).shown).toBe('abc');
    // One word longer than the limit: cut at the limit.
    expect(textPreview('x'.repeat(50_000), 20_000).shown).toBe('x'.repeat(20_000));
    // The limit between the halves of an emoji: the cut comes before it, and characters count it once.
    const emoji = `${'y'.repeat(9)}\u{1F600}${'y'.repeat(10)}`;
    expect(emoji.length).toBe(21);
    expect(textPreview(emoji, 10)).toEqual({ shown: 'y'.repeat(9), cut: true, shownChars: 9, totalChars: 20 });
    expect(textPreview(emoji, 11)).toMatchObject({ shown: `${'y'.repeat(9)}\u{1F600}`, shownChars: 10 });
  });
});
