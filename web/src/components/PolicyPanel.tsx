import { Fragment, useId, useMemo, useState, type ReactNode } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { useAppState } from './useStore';
import { ProblemList } from './ProblemList';
import { CatchUpNote } from './Toolbar';
import { scenarioSchema, formatProblem } from '../engine/validate';
import {
  changedSettings,
  compareKernels,
  currentSetting,
  fileSetting,
  formatSetting,
  NO_OVERRIDES,
  parseControlInput,
  parseScenarioValue,
  policyGroups,
  sameSetting,
  scenarioKernel,
  setArgument,
  setOverride,
  valueAtPath,
  type PolicyControl,
  type PolicyGroup,
  type SettingValue,
} from '../store/policy';
import { unreachable } from '../base/types';
import { unusedBecause } from '../store/kernels';

/** The select's value for a setting that is an object, not one of the names. */
const EXPLICIT = '(explicit)';

/** Schema descriptions mark code with backticks; show it as code. */
function withCode(text: string): ReactNode {
  return text.split('`').map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : <Fragment key={index}>{part}</Fragment>));
}

/**
 * The Policy panel: every switch and knob under the scenario's `policy`, generated
 * from the schema and grouped by patch series, each with the schema's explanation.
 * A change re-runs the same scenario from the same seed with it applied, and the
 * panel lists what differs from the scenario file. What the user types into a
 * number field is kept, with an inline message, until it is valid.
 */
export function PolicyPanel({
  store,
  controller,
  run,
}: {
  store: AppStore;
  controller: Controller;
  /** In compare mode, which run these settings are for (`A`, `B`). */
  run?: string;
}) {
  const fileText = useAppState(store, (s) => s.fileText);
  const scenarioId = useAppState(store, (s) => s.scenarioId);
  const overrides = useAppState(store, (s) => s.policyOverrides);
  const problems = useAppState(store, (s) => s.policyProblems);
  const status = useAppState(store, (s) => s.status);
  const log = useAppState(store, (s) => s.loaded?.log?.name);
  const file = useMemo(() => parseScenarioValue(fileText), [fileText]);
  // The controls follow the kernel that runs: the file's, or the one chosen here.
  const fileKernel = scenarioKernel(scenarioSchema, file);
  const chosenKernel = typeof overrides.kernel === 'string' ? overrides.kernel : undefined;
  const kernel = chosenKernel ?? fileKernel.version;
  const groups: readonly PolicyGroup[] = useMemo(() => policyGroups(scenarioSchema, kernel), [kernel]);
  // What the user typed into number fields, for the file it was typed against.
  const [drafts, setDrafts] = useState<{ readonly file: string; readonly values: Readonly<Record<string, string>> }>({ file: '', values: {} });
  const typed = drafts.file === fileText ? drafts.values : {};
  const setDraft = (path: string, text: string | undefined) =>
    setDrafts((previous) => {
      const values: Record<string, string> = previous.file === fileText ? { ...previous.values } : {};
      if (text === undefined) delete values[path];
      else values[path] = text;
      return { file: fileText, values };
    });

  if (fileText === '' || file === undefined) {
    const logName = log;
    return (
      <section className="panel policy" aria-labelledby="policy-title">
        <h2 id="policy-title">Policy</h2>
        <p className="muted">
          {logName !== undefined
            ? `${logName} is a real machine's log: its policy was the kernel's own. Re-simulate it (Replay panel) to run its workload under another policy.`
            : status === 'error'
              ? 'Load a scenario to change its policy.'
              : 'Loading…'}
        </p>
      </section>
    );
  }

  const changed = changedSettings(groups, file, overrides);
  const seed = typeof (file as { seed?: unknown }).seed === 'number' ? (file as { seed: number }).seed : 0;
  const apply = (control: PolicyControl, value: SettingValue) =>
    controller.updatePolicy((current) => setOverride(current, control, value, file)).then((ok) => {
      // Drop what was typed once it runs, unless the user has typed something else since.
      if (!ok) return;
      setDrafts((previous) => {
        const draft = previous.values[control.path];
        const parsed = draft === undefined ? undefined : parseControlInput(control, draft);
        if (!parsed?.ok || !sameSetting(parsed.value, value)) return previous;
        const values: Record<string, string> = { ...previous.values };
        delete values[control.path];
        return { file: previous.file, values };
      });
    });
  // A `features` path that hangs on another one set elsewhere says it does nothing.
  const featureValue = (name: string) => {
    const control = groups.find((group) => group.id === 'kernel')?.controls.find((candidate) => candidate.path === `features.${name}`);
    const value = control ? currentSetting(control, file, overrides) : undefined;
    return typeof value === 'object' ? undefined : value;
  };
  const rows = (controls: readonly PolicyControl[]) => (
    <ul className="policy-controls">
      {controls.map((control) => (
        <ControlRow
          key={control.path}
          note={control.path.startsWith('features.') ? unusedBecause(control.label, featureValue) : undefined}
          control={control}
          value={currentSetting(control, file, overrides)}
          changed={Object.hasOwn(overrides, control.path) && !sameSetting(overrides[control.path], fileSetting(control, file))}
          typed={typed[control.path]}
          onType={(text) => setDraft(control.path, text)}
          onSet={(value) => void apply(control, value)}
        />
      ))}
    </ul>
  );
  // A path the file or the user sets, rather than leaving it as the version has it.
  const isSet = (control: PolicyControl) => {
    const own = Object.hasOwn(overrides, control.path) ? overrides[control.path] : valueAtPath(file, control.path);
    return own !== undefined && own !== null && !sameSetting(own as SettingValue, control.default);
  };
  const ready = status === 'ready';
  const fileName = scenarioId === 'custom' ? 'the edited scenario' : scenarioId;

  return (
    <section className="panel policy" aria-labelledby="policy-title">
      <div className="policy-head">
        <h2 id="policy-title">Policy</h2>
        {run && (
          <span className="policy-run" data-testid="policy-run">
            of run <span className="run-tag">{run}</span>
          </span>
        )}
        <span className="policy-kernel" data-testid="policy-kernel">
          kernel <strong>{kernel}</strong>
          {chosenKernel !== undefined && chosenKernel !== fileKernel.version ? ' (chosen here)' : fileKernel.fromFile ? '' : ' (default)'} · seed {seed}
        </span>
      </div>
      <p className="muted policy-intro">
        Each change re-runs <code>{fileName}</code> from time 0 with the same seed and the setting applied.
      </p>
      <CatchUpNote store={store} />
      <div className="policy-diff" data-testid="policy-diff">
        {changed.length === 0 ? (
          <p className="muted">Every setting is as in the scenario file.</p>
        ) : (
          <>
            <p>Differs from the scenario file:</p>
            <ul aria-label="Settings changed from the scenario file">
              {changed.map((setting) => (
                <li key={setting.path}>
                  <code>{setting.label}</code> {formatSetting(setting.value)} <span className="muted">(file: {formatSetting(setting.file)})</span>
                </li>
              ))}
            </ul>
            {scenarioId !== 'custom' && (
              <p className="policy-cli">
                <code>
                  schedlab run {scenarioId} {changed.map((setting) => setArgument(setting.path, setting.value)).join(' ')}
                </code>
              </p>
            )}
            <button type="button" onClick={() => void controller.updatePolicy(() => NO_OVERRIDES)}>
              Reset to the scenario file
            </button>
          </>
        )}
      </div>
      {!ready && status === 'error' && (
        <p className="policy-note">The scenario JSON did not load: fix it, or pick a scenario, to change the policy of a run.</p>
      )}
      {problems.length > 0 && (
        <div className="problems" aria-live="polite" data-testid="policy-problems">
          <p>The simulator refused these settings; the previous run is still loaded.</p>
          <ProblemList problems={problems} />
        </div>
      )}
      {groups.map((group) => (
        <fieldset key={group.id} className="policy-group" data-group={group.id} disabled={!ready}>
          <legend>
            {group.title}
            {group.seed !== undefined ? (
              <span className="tag" title="The kernel patch series these settings come from, and the kernel it was written against">
                series {group.seed}
                {group.kernel ? ` · ${group.kernel}` : ''}
              </span>
            ) : group.id === 'kernel' ? null : (
              <span className="policy-group-kernel">kernel {kernel}</span>
            )}
          </legend>
          {group.summary && <p className="policy-summary">{withCode(group.summary)}</p>}
          {group.kernel && compareKernels(group.kernel, kernel) !== 0 && (
            <p className="policy-note">
              Written against {group.kernel}; this scenario runs {kernel}.
            </p>
          )}
          {group.id === 'kernel' ? (
            <>
              {rows(group.controls.slice(0, 1))}
              <KernelPaths kernel={kernel} paths={group.controls.slice(1)} set={group.controls.slice(1).filter(isSet)}>
                {rows(group.controls.slice(1))}
              </KernelPaths>
            </>
          ) : (
            rows(group.controls)
          )}
        </fieldset>
      ))}
    </section>
  );
}

/**
 * The version's paths, folded: seventeen switches and variants are more than a
 * first look needs. Open from the start when the file or the user sets one
 * differently from the version.
 */
function KernelPaths({ kernel, paths, set, children }: { kernel: string; paths: readonly PolicyControl[]; set: readonly PolicyControl[]; children: ReactNode }) {
  // Opens by itself when a path comes to be set (a scenario loaded, a link opened), never closes by itself.
  const [open, setOpen] = useState(set.length > 0);
  const anySet = set.length > 0;
  const [wasSet, setWasSet] = useState(anySet);
  if (anySet !== wasSet) {
    setWasSet(anySet);
    if (anySet) setOpen(true);
  }
  return (
    <details className="policy-paths" open={open} onToggle={(event) => setOpen(event.currentTarget.open)} data-testid="kernel-paths">
      <summary>
        The paths {kernel} selects ({paths.length})
        {set.length > 0 ? (
          <span className="policy-paths-set">
            {' '}
            · set differently: {set.map((control) => control.label).join(', ')}
          </span>
        ) : (
          <span className="muted"> · all as {kernel} has them</span>
        )}
      </summary>
      {children}
    </details>
  );
}

interface ControlRowProps {
  readonly control: PolicyControl;
  /** Said under the description: why the setting does nothing as things are. */
  readonly note?: string | undefined;
  readonly value: SettingValue | undefined;
  readonly changed: boolean;
  /** What the user typed into a number field and has not had applied. */
  readonly typed: string | undefined;
  onType(text: string | undefined): void;
  onSet(value: SettingValue): void;
}

function ControlRow({ control, note, value, changed, typed, onType, onSet }: ControlRowProps) {
  const id = useId();
  const descriptionId = `${id}-description`;
  const errorId = `${id}-error`;
  const parsed = typed === undefined ? undefined : parseControlInput(control, typed);
  const problem = parsed && !parsed.ok ? parsed.problem : undefined;
  const describedBy = problem ? `${errorId} ${descriptionId}` : descriptionId;
  const name = <code className="policy-name">{control.label}</code>;

  let input: ReactNode;
  let selected: string | undefined;
  switch (control.kind) {
    case 'boolean':
      input = (
        <label className="policy-label">
          <input type="checkbox" checked={value === true} aria-describedby={describedBy} onChange={(event) => onSet(event.target.checked)} />
          {name}
        </label>
      );
      break;
    case 'enum':
      selected = control.options.find((option) => option.value === value)?.description;
      input = (
        <>
          <label className="policy-label" htmlFor={id}>
            {name}
          </label>
          <select id={id} value={String(value ?? '')} aria-describedby={describedBy} onChange={(event) => onSet(event.target.value)}>
            {control.options.map((option) => (
              <option key={option.value} value={option.value} title={option.description}>
                {option.value}
              </option>
            ))}
          </select>
        </>
      );
      break;
    case 'enum-or-object': {
      // An object (an explicit order, made in the Struct layout lab) shows as its own choice.
      const explicit = typeof value === 'object';
      selected = explicit ? undefined : control.options.find((option) => option.value === value)?.description;
      input = (
        <>
          <label className="policy-label" htmlFor={id}>
            {name}
          </label>
          <select id={id} value={explicit ? EXPLICIT : String(value ?? '')} aria-describedby={describedBy} onChange={(event) => event.target.value !== EXPLICIT && onSet(event.target.value)}>
            {control.options.map((option) => (
              <option key={option.value} value={option.value} title={option.description}>
                {option.value}
              </option>
            ))}
            {explicit && (
              <option value={EXPLICIT} disabled>
                explicit order (Struct layout lab)
              </option>
            )}
          </select>
        </>
      );
      break;
    }
    case 'integer':
    case 'number':
    case 'text': {
      const commit = () => {
        if (typed === undefined) return;
        const result = parseControlInput(control, typed);
        if (!result.ok) return;
        if (result.value === value) onType(undefined);
        else onSet(result.value);
      };
      const range =
        control.kind === 'text'
          ? undefined
          : [control.minimum !== undefined ? `min ${control.minimum}` : '', control.maximum !== undefined ? `max ${control.maximum}` : ''].filter(Boolean).join(', ');
      // A text field, not type=number: the browser would empty a number field
      // that holds text, and the user's typing must be kept to be corrected.
      input = (
        <>
          <label className="policy-label" htmlFor={id}>
            {name}
          </label>
          <input
            id={id}
            type="text"
            inputMode={control.kind === 'integer' ? 'numeric' : control.kind === 'number' ? 'decimal' : 'text'}
            className="policy-number"
            value={typed ?? (value === undefined ? '' : String(value))}
            aria-invalid={problem !== undefined}
            aria-describedby={describedBy}
            onChange={(event) => onType(event.target.value)}
            onBlur={commit}
            onKeyDown={(event) => {
              if (event.key === 'Enter') commit();
              if (event.key === 'Escape') onType(undefined);
            }}
          />
          {range && <span className="policy-range">{range}</span>}
        </>
      );
      break;
    }
    default:
      return unreachable(control);
  }

  return (
    <li className={`policy-control${changed ? ' changed' : ''}`} data-path={control.path}>
      <div className="policy-row">
        {input}
        {changed && <span className="tag changed-tag">changed</span>}
      </div>
      <p className="policy-description" id={descriptionId}>
        {withCode(control.description)}
        {selected && (
          <>
            {' '}
            <span className="policy-choice">
              <code>{String(value)}</code>: {withCode(selected)}
            </span>
          </>
        )}
      </p>
      {note && (
        <p className="policy-note policy-unused" data-testid="policy-unused">
          {withCode(note)}
        </p>
      )}
      {problem && (
        <p className="policy-error" id={errorId} aria-live="polite">
          {formatProblem(problem)}. Not applied: the run keeps {formatSetting(value)}.
        </p>
      )}
    </li>
  );
}
