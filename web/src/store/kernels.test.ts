import { describe, expect, it } from 'vitest';
import { DEFAULT_KERNEL, KERNEL_VERSIONS, kernelFeatures, kernelKey, unusedBecause } from './kernels';

describe('the kernel table', () => {
  it('has every modelled version, and reads a patch release as its minor version', () => {
    expect(KERNEL_VERSIONS[0]).toBe('4.6');
    expect(KERNEL_VERSIONS.at(-1)).toBe(DEFAULT_KERNEL);
    expect(kernelKey('5.18.3')).toBe('5.18');
    expect(kernelKey('05.010')).toBe('5.10');
    expect(kernelKey('six')).toBeUndefined();
    expect(kernelFeatures('5.18.3')).toEqual(kernelFeatures('5.18'));
    expect(kernelFeatures('7.2')).toBeUndefined();
    expect(kernelFeatures('4.5')).toBeUndefined();
    expect(kernelFeatures('5.25')).toEqual(kernelFeatures('5.19'));
    expect(kernelFeatures('4.99')).toEqual(kernelFeatures('4.20'));
    expect(kernelFeatures('6.5')?.SIS_UTIL).toBe(true);
    expect(kernelFeatures('4.6')?.select_idle_sibling).toBe('4.6');
  });

  it('says when a path is not taken because the one it hangs on is set elsewhere', () => {
    const on = (features: Record<string, boolean | string>) => (name: string) => features[name];
    expect(unusedBecause('SIS_UTIL', on({ select_idle_sibling: '4.6' }))).toBe('Not taken while select_idle_sibling is 4.6: it matters only with select_idle_sibling 4.9 or 5.12.');
    expect(unusedBecause('SIS_UTIL', on({ select_idle_sibling: '5.12' }))).toBeUndefined();
    expect(unusedBecause('WA_BIAS', on({ wake_affine: '4.6' }))).toContain('wake_affine 4.14');
    expect(unusedBecause('ttwu_queue_idle', on({ TTWU_QUEUE: false }))).toBe('Not taken while TTWU_QUEUE is false: it matters only with TTWU_QUEUE true.');
    expect(unusedBecause('ttwu_queue_idle', on({ TTWU_QUEUE: true }))).toBeUndefined();
    // A path nothing else decides, or a value not known: no note.
    expect(unusedBecause('busy_factor', on({}))).toBeUndefined();
    expect(unusedBecause('SIS_UTIL', on({}))).toBeUndefined();
  });
});
