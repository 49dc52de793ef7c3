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
  readonly points: readonly {
    readonly index: number;
    readonly set: Record<string, unknown>;
    readonly label: string;
    readonly scenario: unknown;
    /** The model's message for a point it refused (`scenario` is then the unchecked JSON). */
    readonly refused?: string;
  }[];
}

/**
 * Each point's scenario checked against the schema, as the CLI checks it before a
 * sweep runs (the wasm core has no schema validator): its problems, worded as the
 * CLI words them, each said once.
 */
export function pointProblems(plan: Plan): string[] {
  const problems = new Set<string>();
  for (const point of plan.points) {
    const found = schemaProblems(point.scenario);
    // A point the model refused says the schema's problem when there is one (as the
    // CLI, which checks the schema first), and the model's otherwise.
    if (found.length > 0) problems.add(`point ${point.index} (${point.label}): ${found.map(formatProblem).join('; ')}`);
    else if (point.refused !== undefined) problems.add(point.refused);
  }
  return [...problems];
}
