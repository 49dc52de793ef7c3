import { describe, expect, it } from 'vitest';
import { bucketNearPixel, bucketReadout, HISTOGRAM_CHART, type Bucket } from './histogram';

const BUCKETS: readonly Bucket[] = [
  { upperUs: 1, count: 10 },
  { upperUs: 2, count: 60 },
  { upperUs: 4, count: 29 },
  { upperUs: 2048, count: 1 },
];

describe('the latency histogram read out', () => {
  it('reads a bucket: its range, count, share and the share up to it', () => {
    expect(bucketReadout(BUCKETS, 0)).toBe('up to 1 us: 10 wakeups, 10.0 %; 10.0 % of wakeups up to 1 us');
    expect(bucketReadout(BUCKETS, 2)).toBe('up to 4 us (from 2 us): 29 wakeups, 29.0 %; 99.0 % of wakeups up to 4 us');
    expect(bucketReadout(BUCKETS, 3)).toBe('up to 2 ms (from 4 us): 1 wakeup, 1.0 %; 100.0 % of wakeups up to 2 ms');
  });

  it('without a bucket reads the whole: the count, the fullest bucket, and where 99 % is reached', () => {
    expect(bucketReadout(BUCKETS, undefined)).toBe('100 wakeups; most up to 2 us (60.0 %); 99 % up to 4 us');
    expect(bucketReadout([{ upperUs: 1, count: 0 }], undefined)).toBe('no wakeup yet');
    expect(bucketReadout([], 3)).toBe('no wakeup yet');
  });

  it('finds the bar under the pointer, the gaps split between neighbours, none off the plot', () => {
    const width = HISTOGRAM_CHART.left + 400 + HISTOGRAM_CHART.right;
    // Four bands of about 96 px each (a band is 85 % bar, 15 % gap, with half a gap at either end).
    expect(bucketNearPixel(4, width, HISTOGRAM_CHART.left + 1)).toBe(0);
    expect(bucketNearPixel(4, width, HISTOGRAM_CHART.left + 149)).toBe(1);
    expect(bucketNearPixel(4, width, HISTOGRAM_CHART.left + 151)).toBe(1);
    expect(bucketNearPixel(4, width, HISTOGRAM_CHART.left + 399)).toBe(3);
    expect(bucketNearPixel(4, width, HISTOGRAM_CHART.left - 5)).toBeUndefined();
    expect(bucketNearPixel(4, width, width - HISTOGRAM_CHART.right + 5)).toBeUndefined();
    expect(bucketNearPixel(0, width, HISTOGRAM_CHART.left + 10)).toBeUndefined();
  });
});
