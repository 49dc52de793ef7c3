import { describe, expect, it } from 'vitest';
import { FrequencySeries, formatGhz, formatWatts, idleLabel, parseFramePower, powerOn, type PowerOn } from './power';
import type { PowerInfo } from '../engine/protocol';
import { simTimeNs } from '../base/types';

/** Two sockets of three cores, POWER9's stop states. */
const info: PowerOn = {
  enabled: true,
  nominal_mhz: 3200,
  cores_per_socket: [3, 3],
  budget_w_by_socket: [190, 190],
  turbo_mhz_by_active_cores: [3800, 3700, 3600],
  shallow: { name: 'stop2', exit_latency_ns: 10_000, target_residency_ns: 100_000 },
  deep: { name: 'stop4', exit_latency_ns: 100_000, target_residency_ns: 10_000_000 },
};

describe("frame_power's flat array", () => {
  it('splits into each core’s idle state, then each socket’s MHz and watts', () => {
    const flat = Float64Array.from([0, 1, 2, 2, 2, 0, 3800, 151.25, 3650, 96.5]);
    expect(parseFramePower(flat, info)).toEqual({
      cores: ['active', 'shallow', 'deep', 'deep', 'deep', 'active'],
      sockets: [
        { mhz: 3800, watts: 151.25 },
        { mhz: 3650, watts: 96.5 },
      ],
    });
  });

  it('is nothing when the model is off, and nothing rather than misread figures when the length is wrong', () => {
    const off: PowerInfo = { enabled: false };
    expect(parseFramePower(new Float64Array(0), off)).toBeUndefined();
    expect(parseFramePower(Float64Array.from([0, 3800, 100]), off)).toBeUndefined();
    expect(powerOn(off)).toBeUndefined();
    expect(powerOn(info)).toBe(info);
    // One socket's pair missing: the counts from power_json do not match.
    expect(parseFramePower(Float64Array.from([0, 1, 2, 2, 2, 0, 3800, 151.25]), info)).toBeUndefined();
    // An idle code the bridge never sends.
    expect(parseFramePower(Float64Array.from([0, 1, 7, 2, 2, 0, 3800, 151.25, 3650, 96.5]), info)).toBeUndefined();
  });

  it('names states and figures as the machine shows them', () => {
    expect(idleLabel('deep', info)).toBe('deep idle (stop4)');
    expect(idleLabel('shallow', info)).toBe('shallow idle (stop2)');
    expect(idleLabel('active', info)).toBe('active');
    expect(formatGhz(3650)).toBe('3.65 GHz');
    expect(formatWatts(151.6, 190)).toBe('152 W / 190 W');
    expect(formatWatts(7.25, 190)).toBe('7.3 W / 190 W');
  });
});

const at = (mhz0: number, mhz1: number) => [
  { mhz: mhz0, watts: 0 },
  { mhz: mhz1, watts: 0 },
];

describe('the frequency series', () => {
  it('keeps one point per frame, per socket, oldest first', () => {
    const series = new FrequencySeries(2);
    series.add(simTimeNs(0), at(3200, 3200));
    series.add(simTimeNs(1000), at(3800, 3600));
    expect(series.points(0)).toEqual([
      [0, 3200],
      [1000, 3800],
    ]);
    expect(series.points(1)).toEqual([
      [0, 3200],
      [1000, 3600],
    ]);
    expect(series.latest()).toEqual([3800, 3600]);
    expect(series.extent()).toEqual([3200, 3800]);
  });

  it('replaces a sample at the same instant (a step that did not move the clock)', () => {
    const series = new FrequencySeries(2);
    series.add(simTimeNs(0), at(3200, 3200));
    series.add(simTimeNs(500), at(3500, 3500));
    series.add(simTimeNs(500), at(3700, 3400));
    expect(series.length).toBe(2);
    expect(series.points(0)).toEqual([
      [0, 3200],
      [500, 3700],
    ]);
  });

  it('stays bounded: the older half is thinned to every other point, time 0 and the recent points kept', () => {
    const series = new FrequencySeries(1, 10);
    for (let index = 0; index <= 10; index += 1) series.add(simTimeNs(index * 100), [{ mhz: 3000 + index, watts: 0 }]);
    // 11 points went over 10: of the older five (0..400) the even ones stay, the newer six all.
    expect(series.points(0).map(([time]) => time)).toEqual([0, 200, 400, 500, 600, 700, 800, 900, 1000]);
    expect(series.points(0)[3]).toEqual([500, 3005]);
    for (let index = 11; index < 5000; index += 1) series.add(simTimeNs(index * 100), [{ mhz: 3000 + index, watts: 0 }]);
    const points = series.points(0);
    expect(points.length).toBeLessThanOrEqual(10);
    expect(points[0]).toEqual([0, 3000]);
    expect(points[points.length - 1]).toEqual([499_900, 7999]);
    // Still in time order.
    const times = points.map(([time]) => time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('holds at most FREQUENCY_MAX_POINTS over a long run', () => {
    const series = new FrequencySeries(2);
    for (let index = 0; index < 20_000; index += 1) series.add(simTimeNs(index * 160_000), at(3800, 3600));
    expect(series.length).toBeLessThanOrEqual(series.maxPoints);
    expect(series.length).toBeGreaterThan(series.maxPoints / 2);
  });

  it('resets: cleared, or when time goes back (a new run)', () => {
    const series = new FrequencySeries(2);
    series.add(simTimeNs(0), at(3200, 3200));
    series.add(simTimeNs(1000), at(3800, 3600));
    series.clear();
    expect(series.length).toBe(0);
    expect(series.latest()).toBeUndefined();
    expect(series.extent()).toBeUndefined();
    series.add(simTimeNs(5000), at(3500, 3500));
    series.add(simTimeNs(2000), at(3300, 3400));
    expect(series.points(1)).toEqual([[2000, 3400]]);
  });
});
