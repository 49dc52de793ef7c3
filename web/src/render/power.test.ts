import { describe, expect, it } from 'vitest';
import { coreIdleText, DEEP_PATTERN_ID, formatNs, idleCellBase, idleCellFill, powerBarFill, SHALLOW_FILL, DEEP_FILL } from './power';
import { frequencyDomain } from './frequencyChart';

describe('the power model on the machine', () => {
  it('labels an idle core with the longest text that fits its box, and an active core not at all', () => {
    // A POWER9 SMT4 core at 24 px cells is 108 px wide.
    expect(coreIdleText('deep', 108)).toBe('deep idle');
    expect(coreIdleText('shallow', 108)).toBe('shallow idle');
    expect(coreIdleText('shallow', 60)).toBe('shallow');
    expect(coreIdleText('deep', 20)).toBe('');
    expect(coreIdleText('active', 108)).toBe('');
  });

  it('fills idle cells by their core’s state, and keeps a plain colour under the hatch for text', () => {
    expect(idleCellFill('deep', '#e9ecef')).toBe(`url(#${DEEP_PATTERN_ID})`);
    expect(idleCellBase('deep', '#e9ecef')).toBe(DEEP_FILL);
    expect(idleCellFill('shallow', '#e9ecef')).toBe(SHALLOW_FILL);
    expect(idleCellFill('active', '#e9ecef')).toBe('#e9ecef');
    expect(idleCellFill(undefined, '#e9ecef')).toBe('#e9ecef');
  });

  it('colours the power bar by the share of the budget drawn', () => {
    expect(powerBarFill(0.5)).toBe('#3e6ea5');
    expect(powerBarFill(0.95)).toBe('#dd6b20');
    expect(powerBarFill(1.2)).toBe('#c53030');
  });

  it('writes idle-state latencies in the unit the platform tables use', () => {
    expect(formatNs(10_000)).toBe('10 us');
    expect(formatNs(100_000)).toBe('100 us');
    expect(formatNs(10_000_000)).toBe('10 ms');
    expect(formatNs(800)).toBe('800 ns');
  });
});

describe('the Frequency chart’s MHz axis', () => {
  it('spans the samples, the nominal frequency and the turbo table, on 100 MHz steps', () => {
    expect(frequencyDomain([3300, 3700], 3200, [3800, 3600])).toEqual([3100, 3900]);
    // A sample below the nominal frequency widens it.
    expect(frequencyDomain([2000, 3800], 3200, [3800])).toEqual([1800, 4000]);
    expect(frequencyDomain(undefined, 3200, [])).toEqual([3100, 3300]);
  });
});
