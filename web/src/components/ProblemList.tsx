import type { ScenarioProblem } from '../engine/protocol';
import { formatProblem } from '../engine/validate';

/** Scenario problems, one `path: message` line each, as the CLI prints them. */
export function ProblemList({ problems }: { readonly problems: readonly ScenarioProblem[] }) {
  return (
    <ul>
      {problems.map((problem) => (
        <li key={formatProblem(problem)}>
          <code>{formatProblem(problem)}</code>
        </li>
      ))}
    </ul>
  );
}
