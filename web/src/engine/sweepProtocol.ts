/** Messages between the UI and the sweep worker (`sweepWorker.ts`). */
import type { JsonValue } from '../store/policy';

export interface SweepRequest {
  /** The scenario every point starts from, with the Policy panel's settings applied. */
  readonly scenarioText: string;
  /** The run's name in the summaries (`scenario`). */
  readonly name: string;
  /** `PATH=VALUES` per varied field, as `schedlab sweep --vary` takes them; the first varies slowest. */
  readonly vary: readonly string[];
  /** As `--seeds` takes them: `1..5`, `1,7,9`. */
  readonly seeds: string;
  /** Refuse a sweep of more runs than this (the browser is not a batch machine). */
  readonly maxRuns: number;
}

export interface SweepProgress {
  readonly done: number;
  readonly total: number;
}

/** One point: its settings as the scenario holds them, and the median, min and max over seeds of every number in the run summary. */
export interface SweepPoint {
  readonly index: number;
  readonly set: Readonly<Record<string, unknown>>;
  readonly median: JsonValue;
  readonly min: JsonValue;
  readonly max: JsonValue;
  /** Each run's summary, in the order of `SweepResult.seeds` (for changes paired by seed). */
  readonly runs: readonly JsonValue[];
}

/** What `schedlab sweep --json` prints, with the seeds. */
export interface SweepResult {
  readonly seeds: readonly number[];
  readonly points: readonly SweepPoint[];
}

export type SweepOutcome = { readonly ok: true; readonly result: SweepResult } | { readonly ok: false; readonly problems: readonly string[] };

/** One run's summary (`Sweeper.summary`): its JSON text, or why it did not run. */
export type SummaryOutcome = { readonly ok: true; readonly summary: string } | { readonly ok: false; readonly message: string };
