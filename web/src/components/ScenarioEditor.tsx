import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { useAppState } from './useStore';
import { ProblemList } from './ProblemList';

/** The scenario as JSON: edit and apply. Bad input is explained; the text is kept. */
export function ScenarioEditor({ store, controller }: { store: AppStore; controller: Controller }) {
  const text = useAppState(store, (s) => s.scenarioText);
  const problems = useAppState(store, (s) => s.problems);
  const status = useAppState(store, (s) => s.status);
  return (
    <section className="panel editor" aria-labelledby="editor-title">
      <h2 id="editor-title">Scenario JSON</h2>
      <p className="muted">
        Edit any field (machine, workloads, knobs, seed) and apply. The format is described by{' '}
        <code>scenarios/scenario.schema.json</code>. The Policy panel&apos;s settings run on top of the applied text; applying new text starts
        from the file&apos;s own policy.
      </p>
      <textarea
        aria-label="Scenario JSON"
        spellCheck={false}
        value={text}
        onChange={(event) => controller.editText(event.target.value)}
        rows={16}
      />
      <div className="editor-actions">
        <button type="button" onClick={() => void controller.load('custom', store.get().scenarioText)} disabled={status === 'loading'}>
          Apply scenario
        </button>
      </div>
      {problems.length > 0 && (
        <div role="alert" className="problems">
          <p>
            The scenario was not loaded: {problems.length} problem{problems.length === 1 ? '' : 's'}.
          </p>
          <ProblemList problems={problems} />
        </div>
      )}
    </section>
  );
}
