import { describe, expect, it } from 'vitest';
import { slices, slicesInPlace, type Slices } from './logSlices';

function join(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

async function drain(source: Slices): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let slice = await source.next(); slice; slice = await source.next()) out.push(slice);
  return out;
}

const bytes = Uint8Array.from({ length: 10_000 }, (_, index) => (index * 7) % 251);
const blob = new Blob([bytes]);

describe('log slices', () => {
  it('cut a file into slices that give it back whole, in order', async () => {
    const parts = await drain(slicesInPlace(blob, 3_000));
    expect(parts.map((part) => part.byteLength)).toEqual([3_000, 3_000, 3_000, 1_000]);
    expect(join(parts)).toEqual(bytes);
  });

  it('give nothing for an empty file', async () => {
    expect(await drain(slicesInPlace(new Blob([]), 4_096))).toEqual([]);
  });

  it('stop giving slices once stopped', async () => {
    const source = slicesInPlace(blob, 1_000);
    expect((await source.next())?.byteLength).toBe(1_000);
    source.stop();
    expect(await source.next()).toBeUndefined();
  });

  it('are read in place where no worker can be started', async () => {
    // Node has no `Worker` global: `slices` falls back to reading here.
    expect(typeof Worker).toBe('undefined');
    expect(join(await drain(slices(blob, 4_096)))).toEqual(bytes);
  });
});
