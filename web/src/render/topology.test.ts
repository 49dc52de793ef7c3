import { describe, expect, it } from 'vitest';
import { cpuMark } from './topology';

describe('CPU marks for the selected task', () => {
  it('outline the allowed CPUs and dim the others', () => {
    const highlight = { allowed: new Set([0, 16]), chosen: 16 };
    expect(cpuMark(0, highlight)).toBe('allowed');
    expect(cpuMark(16, highlight)).toBe('allowed');
    expect(cpuMark(1, highlight)).toBe('not-allowed');
  });

  it('mark nothing when no task is selected', () => {
    expect(cpuMark(0, undefined)).toBe('none');
  });
});
