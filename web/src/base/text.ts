/** The 1-based line and column of an offset in a text. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/**
 * The legend's labels, each group told apart: a label that more than one group
 * has (two tasks of a log with the same comm) is numbered, `a:b c-d (1)`, `a:b c-d (2)`.
 */
export function distinctLabels(labels: readonly string[]): string[] {
  const total = new Map<string, number>();
  for (const label of labels) total.set(label, (total.get(label) ?? 0) + 1);
  const seen = new Map<string, number>();
  return labels.map((label) => {
    if ((total.get(label) ?? 0) < 2) return label;
    const nth = (seen.get(label) ?? 0) + 1;
    seen.set(label, nth);
    return `${label} (${nth})`;
  });
}

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (rows[i]?.[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      const row = rows[i];
      if (row) row[j] = best;
    }
  }
  return rows[a.length]?.[b.length] ?? Number.POSITIVE_INFINITY;
}

/** A long text's start, for showing without laying out all of it: see `textPreview`. */
export interface TextPreview {
  /** The text shown: all of it, or its start. */
  shown: string;
  /** Whether `shown` is only the start. */
  cut: boolean;
  /** Characters (code points, as people count them) in `shown` and in the whole text. */
  shownChars: number;
  totalChars: number;
}

/** How far back from the limit a cut looks for a space, so that it does not end inside a word. */
const WORD_END_REACH = 200;

/**
 * The text whole when it has at most `limit` UTF-16 units; else its start, at most
 * `limit` units long: ended before the last space within reach of the limit (no word is
 * cut in two), or at the limit itself when there is none (one very long word), and never
 * between the two halves of a surrogate pair.
 */
export function textPreview(text: string, limit: number): TextPreview {
  const totalChars = codePoints(text);
  if (text.length <= limit) return { shown: text, cut: false, shownChars: totalChars, totalChars };
  let end = limit;
  // The cut goes before a space: the words before it are whole.
  for (let at = limit; at > limit - WORD_END_REACH && at > 0; at--) {
    if (/\s/.test(text[at] ?? '')) {
      end = at;
      break;
    }
  }
  if (end === limit && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  const shown = text.slice(0, end).trimEnd();
  return { shown, cut: true, shownChars: codePoints(shown), totalChars };
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** Code points in a text: a surrogate pair (an emoji, say) counts once. */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if (isHighSurrogate(text.charCodeAt(i)) && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count -= 1;
      i += 1;
    }
  }
  return count;
}
