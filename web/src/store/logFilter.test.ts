import { describe, expect, it } from 'vitest';
import { isFiltered, NO_FILTER, readLogFilter } from './logFilter';

describe('the event log filter', () => {
  it('reads an event, a CPU and a pid, each optional', () => {
    expect(readLogFilter('', '', '', 8)).toEqual({ filter: NO_FILTER, problems: [] });
    expect(readLogFilter('sched_switch', ' 3 ', '1005', 8).filter).toEqual({ event: 'sched_switch', cpu: 3, pid: 1005 });
    expect(isFiltered(NO_FILTER)).toBe(false);
    expect(isFiltered({ event: '', cpu: 0, pid: undefined })).toBe(true);
  });

  it('says what is wrong with a field and leaves that part of the filter out', () => {
    const bad = readLogFilter('', 'x', '-4', 8);
    expect(bad.filter).toEqual(NO_FILTER);
    expect(bad.problems).toEqual([
      { path: 'CPU', message: 'expected a whole number from 0, got `x`' },
      { path: 'pid', message: 'expected a whole number from 0, got `-4`' },
    ]);
    expect(readLogFilter('', '8', '', 8).problems).toEqual([{ path: 'CPU', message: 'this machine has CPUs 0 to 7, not 8' }]);
  });
});
