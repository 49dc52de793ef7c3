/**
 * How the Counters panel words a workload's headline figures. The numbers come
 * unchanged from the core's `Simulator::throughputs` (the same list as `schedlab
 * run --json`'s `throughput_by_workload`); this only names and formats them.
 */
import { formatFixed } from '../base/format';
import type { Throughput, ThroughputKind } from '../engine/protocol';

export interface ThroughputRow {
  /** What the figure is: `throughput`, `time to finish`, `Copy (best)`. */
  readonly name: string;
  /** The value with its unit: `1,234.5 requests/s`, `0.412 s`, `47,912.3 MB/s`. */
  readonly text: string;
  /** A sentence for the tooltip. */
  readonly hint: string;
}

/** `47912.34` → `47,912.3` (the CLI prints `{:.1}`; grouping only for reading). */
export function formatFigure(value: number, digits: number): string {
  return formatFixed(value, digits);
}

/** One row per figure of one workload. */
export function throughputRows(kind: ThroughputKind | undefined, values: readonly Throughput[]): ThroughputRow[] {
  return values.map(({ unit, value }) => {
    if (unit === 's') {
      return {
        name: 'time to finish',
        text: `${formatFigure(value, 3)} s`,
        hint: 'Simulated time until every task of the workload exited (hackbench, a kernel compile).',
      };
    }
    // STREAM's figures are `MB/s Copy`, `MB/s Scale`, ...: a unit, then the kernel.
    const space = unit.indexOf(' ');
    if (space > 0) {
      const base = unit.slice(0, space);
      const kernel = unit.slice(space + 1);
      return {
        name: kind === 'stream' ? `STREAM ${kernel} (best)` : `${kernel} (best)`,
        // Nothing measured until the kernel's first pass ends (the CLI prints 0.0).
        text: value > 0 ? `${formatFigure(value, 1)} ${base}` : `— ${base}`,
        hint: value > 0 ? `STREAM's ${kernel} kernel: bytes it moves over its fastest pass so far.` : `No ${kernel} pass has finished yet.`,
      };
    }
    if (kind === 'completion_time') {
      return {
        name: 'throughput so far',
        text: `${formatFigure(value, 1)} ${unit}`,
        hint: 'Still running: the time to finish shows once every task has exited.',
      };
    }
    return { name: 'throughput', text: `${formatFigure(value, 1)} ${unit}`, hint: 'Completed work per simulated second.' };
  });
}
