import { describe, expect, it } from 'vitest';
import { throughputRows } from './throughput';

describe('throughput rows', () => {
  it('shows a rate in its unit', () => {
    expect(throughputRows('rate', [{ unit: 'requests/s', value: 12345.678 }])).toMatchObject([
      { name: 'throughput', text: '12,345.7 requests/s' },
    ]);
  });

  it('names a finished completion time, and the fallback rate before it', () => {
    expect(throughputRows('completion_time', [{ unit: 's', value: 0.41234 }])).toMatchObject([
      { name: 'time to finish', text: '0.412 s' },
    ]);
    expect(throughputRows('completion_time', [{ unit: 'messages/s', value: 2500 }])).toMatchObject([
      { name: 'throughput so far', text: '2,500.0 messages/s' },
    ]);
  });

  it('gives each STREAM kernel its own MB/s row', () => {
    const rows = throughputRows('stream', [
      { unit: 'MB/s Copy', value: 47912.34 },
      { unit: 'MB/s Triad', value: 0 },
    ]);
    expect(rows).toMatchObject([
      { name: 'STREAM Copy (best)', text: '47,912.3 MB/s' },
      { name: 'STREAM Triad (best)', text: '— MB/s' },
    ]);
  });
});
