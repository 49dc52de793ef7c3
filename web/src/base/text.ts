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
