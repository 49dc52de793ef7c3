/**
 * A sweep's points checked against the scenario schema before anything runs, as
 * `schedlab sweep` checks them: the wasm core plans the points (`sweep_plan`) but
 * has no JSON Schema validator, so a swept value outside the schema's bounds would
 * otherwise reach the model.
 */
import { formatProblem, schemaProblems } from './validate';

/** What `sweep_plan` answers. */
export interface Plan {
  readonly seeds: readonly number[];
  readonly points: readonly { readonly index: number; readonly set: Record<string, unknown>; readonly label: string; readonly scenario: unknown }[];
}

/**
 * Each point's scenario checked against the schema, as the CLI checks it before a
 * sweep runs (the wasm core has no schema validator): its problems, worded as the
 * CLI words them, each said once.
 */
export function pointProblems(plan: Plan): string[] {
  const problems: string[] = [];
  for (const point of plan.points) {
    const found = schemaProblems(point.scenario);
    if (found.length === 0) continue;
    const line = `point ${point.index} (${point.label}): ${found.map(formatProblem).join('; ')}`;
    if (!problems.includes(line)) problems.push(line);
  }
  return problems;
}
