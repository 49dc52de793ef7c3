import { useMemo, useState, useSyncExternalStore } from 'react';
import type { AppStore } from '../store/app';
import type { CompareSession, CompareState } from '../store/compareSession';
import { compareMarkdown, compareRows, describeDiff, formatChange, formatValue, settingDiffs, verdict } from '../store/compare';
import { parseScenarioValue, policyGroups, scenarioKernel } from '../store/policy';
import { scenarioSchema } from '../engine/validate';
import { seedOf } from '../store/share';
import { formatTraceTime } from '../base/format';
import { simTimeNs } from '../base/types';
import { useAppState } from './useStore';
import { ProblemList } from './ProblemList';
import { downloadBlob } from './download';


export function useCompare<T>(session: CompareSession, select: (state: CompareState) => T): T {
  return useSyncExternalStore(session.state.subscribe, () => select(session.state.get()));
}

/** The toolbar's `Compare` button: starts or stops compare mode. */
export function CompareButton({ store, session }: { store: AppStore; session: CompareSession }) {
  const on = useCompare(session, (s) => s.on);
  const status = useAppState(store, (s) => s.status);
  return (
    <button
      type="button"
      aria-pressed={on}
      disabled={!on && status !== 'ready'}
      onClick={() => (on ? session.stop() : void session.start())}
      title={on ? 'Stop comparing: back to one run' : 'Run this scenario a second time (B) with other settings, side by side on one time axis'}
    >
      Compare
    </button>
  );
}

/** Which run the Policy panel edits, in compare mode. */
export function SideSwitch({ session }: { session: CompareSession }) {
  const editing = useCompare(session, (s) => s.editing);
  return (
    <div className="side-switch" role="radiogroup" aria-label="Settings of run">
      <span>Policy settings of run</span>
      {(['A', 'B'] as const).map((side) => (
        <label key={side} className={editing === side ? 'chosen' : undefined}>
          <input type="radio" name="compare-side" checked={editing === side} onChange={() => session.edit(side)} />
          <span className="run-tag">{side}</span>
        </label>
      ))}
    </div>
  );
}

/**
 * The Comparison region: what B changes from A, and the metrics of both runs at
 * the playhead (their `run --json` summaries) with the change in %, coloured
 * when a direction is better; copied or saved as Markdown.
 */
export function ComparisonPanel({ store, session, storeB }: { store: AppStore; session: CompareSession; storeB: AppStore }) {
  const summaries = useCompare(session, (s) => s.summaries);
  const problems = useCompare(session, (s) => s.problems);
  const fileText = useAppState(store, (s) => s.fileText);
  const scenarioId = useAppState(store, (s) => s.scenarioId);
  const overridesA = useAppState(store, (s) => s.policyOverrides);
  const overridesB = useAppState(storeB, (s) => s.policyOverrides);
  const policyProblemsB = useAppState(storeB, (s) => s.policyProblems);
  const logA = useAppState(store, (s) => s.loaded?.log?.name);
  const [copied, setCopied] = useState(false);
  const file = useMemo(() => parseScenarioValue(fileText), [fileText]);
  // Each side's paths default to its own kernel's (the file's, or the one chosen for it).
  const fileKernel = scenarioKernel(scenarioSchema, file).version;
  const kernelA = typeof overridesA.kernel === 'string' ? overridesA.kernel : fileKernel;
  const kernelB = typeof overridesB.kernel === 'string' ? overridesB.kernel : fileKernel;
  const groupsA = useMemo(() => policyGroups(scenarioSchema, kernelA), [kernelA]);
  const groupsB = useMemo(() => policyGroups(scenarioSchema, kernelB), [kernelB]);
  const diffs = settingDiffs(groupsA, groupsB, file, overridesA, overridesB);
  const rows = useMemo(() => compareRows(summaries?.a, summaries?.b), [summaries]);
  const time = formatTraceTime(simTimeNs(summaries?.atNs ?? 0));
  const markdown = () => compareMarkdown({ scenario: scenarioId, seed: seedOf(fileText), timeS: time, diffs }, rows);

  return (
    <section className="panel comparison" aria-labelledby="comparison-title">
      <div className="comparison-head">
        <h2 id="comparison-title">
          Comparison: <span className="run-tag">A</span> and <span className="run-tag">B</span>
        </h2>
        <span className="muted" data-testid="comparison-what">
          {logA === undefined ? 'same scenario and seed' : `A is the log ${logA}; B simulates its workload`}
          {summaries ? `, both at t = ${time} s` : ''}
        </span>
        <span className="comparison-actions">
          <button
            type="button"
            disabled={!summaries}
            onClick={() => {
              void navigator.clipboard?.writeText(markdown()).then(
                () => setCopied(true),
                () => setCopied(false),
              );
            }}
          >
            {copied ? 'Copied' : 'Copy as Markdown'}
          </button>
          <button
            type="button"
            disabled={!summaries}
            onClick={() => downloadBlob(new Blob([markdown()], { type: 'text/markdown' }), `${scenarioId}-compare.md`)}
          >
            Save Markdown
          </button>
          <button type="button" onClick={() => session.stop()}>
            Stop comparing
          </button>
        </span>
      </div>
      <div className="differs" data-testid="differs">
        <strong>B differs from A by:</strong>{' '}
        {logA !== undefined ? (
          <span className="muted">being a simulation of the log's workload{diffs.length > 0 ? ', with B’s settings from the Policy panel' : ''}.</span>
        ) : diffs.length === 0 ? (
          <span className="muted">nothing yet. Pick run B above the Policy panel and change a setting.</span>
        ) : (
          <ul>
            {diffs.map((diff) => (
              <li key={diff.path}>
                <code>{describeDiff(diff)}</code>
              </li>
            ))}
          </ul>
        )}
      </div>
      {(problems.length > 0 || policyProblemsB.length > 0) && (
        <div role="alert" className="problems">
          <p>Run B could not use its settings:</p>
          <ProblemList problems={[...problems, ...policyProblemsB.map((problem) => ({ ...problem, path: `B ${problem.path}` }))]} />
        </div>
      )}
      {summaries ? (
        <table className="compare-table" aria-label="Metrics of A and B">
          <thead>
            <tr>
              <th scope="col">metric</th>
              <th scope="col">A</th>
              <th scope="col">B</th>
              <th scope="col">change</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => {
              const judged = verdict(entry);
              return (
                <tr key={`${entry.group}-${entry.label}-${entry.unit}`} data-metric={`${entry.group}: ${entry.label}`}>
                  <th scope="row">
                    <span className="muted">{entry.group}:</span> {entry.label}
                    {entry.unit !== '' && <span className="muted"> ({entry.unit})</span>}
                  </th>
                  <td>{formatValue(entry.a, entry.digits)}</td>
                  <td>{formatValue(entry.b, entry.digits)}</td>
                  <td className={judged ? `change ${judged}` : 'change'}>{formatChange(entry)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : (
        <p className="muted">Running B to the playhead…</p>
      )}
    </section>
  );
}
