/** Branded types: a CpuId cannot be passed where a Pid is expected. */
declare const brand: unique symbol;
export type Brand<T, B extends string> = T & { readonly [brand]: B };

/** Simulated time in nanoseconds (a float64 holds every value a run reaches). */
export type SimTimeNs = Brand<number, 'SimTimeNs'>;
export type CpuId = Brand<number, 'CpuId'>;
export type Pid = Brand<number, 'Pid'>;
export type LlcId = Brand<number, 'LlcId'>;

export const simTimeNs = (ns: number): SimTimeNs => ns as SimTimeNs;
export const cpuId = (cpu: number): CpuId => cpu as CpuId;
export const pid = (value: number): Pid => value as Pid;
export const llcId = (llc: number): LlcId => llc as LlcId;

/** For exhaustive switches: compile error if a case is missing. */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${String(value)}`);
}
