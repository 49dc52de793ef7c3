/**
 * The kernel versions the core models, and the variant each baseline path takes in
 * each (`Features::of` in crates/sched-core/src/kernel.rs), from the generated
 * table `engine/kernels.json` (a Rust test keeps it in step). The Policy panel's
 * kernel choice and the defaults of its `features.*` controls come from here.
 */
import table from '../engine/kernels.json';

/** A resolved path: a switch, a variant's name, or a number (`busy_factor`). */
export type FeatureValue = boolean | number | string;

/** Every released `major.minor` the core accepts, oldest first. */
export const KERNEL_VERSIONS: readonly string[] = table.versions;

/** The version a scenario without a `kernel` field runs. */
export const DEFAULT_KERNEL: string = table.default;

const FEATURES = table.features as Readonly<Record<string, Readonly<Record<string, FeatureValue>>>>;

/** `"5.18.3"` → `"5.18"`; undefined when it is not `MAJOR.MINOR[.PATCH]`. */
export function kernelKey(version: string): string | undefined {
  const match = /^\s*(\d+)\.(\d+)(\.\d+)?\s*$/.exec(version);
  return match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
}

/** `MAJOR.MINOR` compared as numbers: `4.6` < `4.14` < `5.18` < `6.5`. */
export function compareKernels(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * The variant of each path in `version`, or undefined for a version the core does
 * not model (before the oldest, after the newest). A minor the table lacks
 * (`5.25`, which the core accepts) has the paths of the newest version below it:
 * every change in `Features::of` falls on a released version.
 */
export function kernelFeatures(version: string): Readonly<Record<string, FeatureValue>> | undefined {
  const key = kernelKey(version);
  if (key === undefined) return undefined;
  const oldest = KERNEL_VERSIONS[0];
  const newest = KERNEL_VERSIONS.at(-1);
  if (oldest === undefined || newest === undefined || compareKernels(key, oldest) < 0 || compareKernels(key, newest) > 0) return undefined;
  const floor = KERNEL_VERSIONS.filter((known) => compareKernels(known, key) <= 0).at(-1);
  return floor === undefined ? undefined : FEATURES[floor];
}

const NEEDS = (table as { needs?: Readonly<Record<string, { readonly path: string; readonly values: readonly string[] }>> }).needs ?? {};

/**
 * Why the `features` path `name` is not taken with the other paths as they are
 * (`kernel::PATH_NEEDS`: the scan bounds need a `select_idle_sibling` with an
 * idle-CPU scan, `WA_*` the 4.14 `wake_affine`, ...), or undefined when it is.
 * `valueOf` gives a path's current setting by its name (`select_idle_sibling`).
 */
export function unusedBecause(name: string, valueOf: (name: string) => FeatureValue | undefined): string | undefined {
  const need = NEEDS[name];
  if (!need) return undefined;
  const current = valueOf(need.path);
  if (current === undefined || need.values.includes(String(current))) return undefined;
  return `Not taken while ${need.path} is ${String(current)}: it matters only with ${need.path} ${need.values.join(' or ')}.`;
}
