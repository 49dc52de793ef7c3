import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK_SIZE, TimeSeries } from './series';

/** An entry as a plain model keeps it. */
type Entry = readonly [time: number, value: number, total: number];

/** The counts a sorted list of times gives, the slow way. */
const atOrBefore = (entries: readonly Entry[], time: number) => entries.filter(([at]) => at <= time).length;
const before = (entries: readonly Entry[], time: number) => entries.filter(([at]) => at < time).length;

function expectSame(series: TimeSeries, entries: readonly Entry[]) {
  expect(series.length).toBe(entries.length);
  const read = entries.map((_, index): Entry => [series.timeAt(index), series.valueAt(index), series.totalAt(index)]);
  expect(read).toEqual(entries);
}

/**
 * One step of a random history: append after a gap (small, none, or longer than
 * 2^32 ns, sometimes fractional), drop to a shorter length, or rewrite the last entry.
 */
const step = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('push' as const),
      gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000 }), fc.constant(2 ** 32 + 7), fc.constant(0.5)),
      value: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 65_530, max: 4_000_000 })),
      total: fc.double({ min: 0, max: 1e12, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), back: fc.integer({ min: 0, max: CHUNK_SIZE + 10 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('setLast' as const), value: fc.integer({ min: 0, max: 70_000 }), total: fc.double({ min: 0, max: 1e9, noNaN: true }) }) },
);

describe('TimeSeries', () => {
  it('reads back what was written, across chunks, after any history of appends, truncations and rewrites', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.oneof(fc.constantFrom(CHUNK_SIZE - 1, CHUNK_SIZE, CHUNK_SIZE + 1, 2 * CHUNK_SIZE + 1), fc.integer({ min: 0, max: 2 * CHUNK_SIZE + 50 })), (steps, bulk) => {
        const series = new TimeSeries(true);
        const model: Entry[] = [];
        // A bulk start so the histories cross chunk boundaries (often just before or after one).
        for (let index = 0; index < bulk; index++) {
          series.push(index * 10, index % 7, index);
          model.push([index * 10, index % 7, index]);
        }
        for (const action of steps) {
          const lastTime = model[model.length - 1]?.[0] ?? 0;
          if (action.kind === 'push') {
            const entry: Entry = [lastTime + action.gap, action.value, action.total];
            series.push(...entry);
            model.push(entry);
          } else if (action.kind === 'truncate') {
            const length = Math.max(0, model.length - action.back);
            series.truncate(length);
            model.length = length;
          } else if (model.length > 0) {
            // Rewrite the last entry, keeping it at or after the one before it.
            const previous = model[model.length - 2]?.[0] ?? 0;
            const entry: Entry = [Math.max(previous, lastTime - 3), action.value, action.total];
            series.setLast(...entry);
            model[model.length - 1] = entry;
          }
        }
        expectSame(series, model);
        // Every entry of the steps' part, and a sample of the bulk (the slow counts are quadratic).
        const sampled = model.filter((_, index) => index >= bulk - 2 || index % 97 === 0).map(([time]) => time);
        const probes = [-1, 0, ...sampled, ...sampled.map((time) => time + 0.25), (model[model.length - 1]?.[0] ?? 0) + 1];
        expect(probes.map((probe) => [series.countAtOrBefore(probe), series.countBefore(probe)])).toEqual(
          probes.map((probe) => [atOrBefore(model, probe), before(model, probe)]),
        );
      }),
      { numRuns: 80, seed: 20261127 },
    );
  });

  it('moves where a chunk starts when its first entry is rewritten', () => {
    const series = new TimeSeries();
    for (let index = 0; index <= CHUNK_SIZE; index++) series.push(index * 10, 1);
    // Entry CHUNK_SIZE opens the second chunk; rewrite it 3 ns earlier.
    series.setLast(CHUNK_SIZE * 10 - 3, 2);
    expect(series.countAtOrBefore(CHUNK_SIZE * 10 - 3)).toBe(CHUNK_SIZE + 1);
    expect(series.countBefore(CHUNK_SIZE * 10 - 2)).toBe(CHUNK_SIZE + 1);
    expect(series.timeAt(CHUNK_SIZE)).toBe(CHUNK_SIZE * 10 - 3);
  });

  it('packs a long series of small steps into about 6 bytes an entry, totals adding 8', () => {
    const entries = 10 * CHUNK_SIZE;
    const plain = new TimeSeries();
    const withTotals = new TimeSeries(true);
    for (let index = 0; index < entries; index++) {
      plain.push(1e9 + index * 1_000, index % 40);
      withTotals.push(1e9 + index * 1_000, index % 40, index * 3.5);
    }
    expect(plain.bytes / entries).toBeLessThan(6.1);
    expect(withTotals.bytes / entries).toBeLessThan(14.1);
    // One chunk widened by a single large value or gap, not the series.
    plain.push(1e9 + entries * 1_000 + 2 ** 33, 100_000);
    expect(plain.valueAt(entries)).toBe(100_000);
    expect(plain.timeAt(entries)).toBe(1e9 + entries * 1_000 + 2 ** 33);
    expect(plain.bytes / (entries + 1)).toBeLessThan(6.1);
  });
});
