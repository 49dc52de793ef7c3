import { describe, expect, it } from 'vitest';
import { formatCount, formatFixed, formatGrouped, formatUs } from './format';

describe('number formats', () => {
  it('formatGrouped gives what toLocaleString gives', () => {
    const values = [0, -0, 1, -1, 12, 123, -123, 1000, -1000, 99999, 100000, 0.5, 1.005, 999.995, 1234.5678, -9876543.21, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1e21, 123456789012, Number.NaN, Infinity, -Infinity];
    for (const digits of [0, 1, 2, 3]) {
      for (const value of values) {
        const expected = value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
        expect(formatGrouped(value, digits), `${value} to ${digits} decimals`).toBe(expected);
      }
    }
    // Whole numbers of every length and sign, by a fixed sequence.
    let state = 12345;
    for (let i = 0; i < 3000; i += 1) {
      state = (state * 1103515245 + 12345) % 2147483648;
      const value = Math.round((state / 2147483648 - 0.5) * 10 ** (i % 17));
      expect(formatGrouped(value), String(value)).toBe(value.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: 0 }));
    }
  });

  it('counts and microseconds are whole, with thousands separated; a missing value is a dash', () => {
    expect(formatCount(1234567.4)).toBe('1,234,567');
    expect(formatCount(2.5)).toBe('3');
    expect(formatUs(999.5)).toBe('1,000');
    expect(formatFixed(1234.5, 2)).toBe('1,234.50');
    expect(formatFixed(undefined, 2)).toBe('—');
  });
});
