import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type ChangeEvent, type KeyboardEvent } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import type { ScenarioProblem } from '../engine/protocol';
import { formatProblem, scenarioSchema, scenarioTextProblems } from '../engine/validate';
import { lineColumnOf } from '../base/text';
import { describeAt, insertField, keyContextAt, problemOffset, suggestionsAt, type FieldSuggestion } from '../store/completion';
import { useAppState } from './useStore';
import { ProblemList } from './ProblemList';

/** How long typing must pause before the text is checked. */
const CHECK_DELAY_MS = 250;
/** The suggestion list's widest (CSS pixels); narrower in a narrow panel. */
const SUGGEST_WIDTH = 440;
/** Where the schema is served (`vite.config.ts`). */
const SCHEMA_URL = `${import.meta.env.BASE_URL}scenario.schema.json`;

/** The open field suggestions: what is offered, the highlighted one, where the list sits. */
interface Suggest {
  readonly items: readonly FieldSuggestion[];
  readonly active: number;
  readonly top: number;
  readonly left: number;
  readonly width: number;
}

/** The textarea's styles that decide where its text wraps. */
const MIRRORED = [
  'fontFamily',
  'fontSize',
  'fontStyle',
  'fontVariant',
  'fontWeight',
  'fontStretch',
  'lineHeight',
  'letterSpacing',
  'wordSpacing',
  'tabSize',
  'textIndent',
  'textTransform',
  'paddingTop',
  'paddingRight',
  'paddingBottom',
  'paddingLeft',
] as const;

function lineHeightOf(style: CSSStyleDeclaration): number {
  const height = parseFloat(style.lineHeight);
  return Number.isFinite(height) ? height : parseFloat(style.fontSize) * 1.25;
}

/**
 * Where a text offset is drawn in a textarea, relative to its border box as it is
 * scrolled: measured on a hidden copy of its text that wraps the same way.
 */
function caretBox(textarea: HTMLTextAreaElement, offset: number): { top: number; left: number; height: number } {
  const style = window.getComputedStyle(textarea);
  const mirror = document.createElement('div');
  for (const name of MIRRORED) mirror.style[name] = style[name];
  Object.assign(mirror.style, {
    position: 'absolute',
    visibility: 'hidden',
    top: '0',
    left: '-9999px',
    boxSizing: 'content-box',
    border: '0',
    whiteSpace: 'pre-wrap',
    overflowWrap: 'break-word',
    width: `${textarea.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)}px`,
  });
  mirror.textContent = textarea.value.slice(0, offset);
  const marker = document.createElement('span');
  marker.textContent = textarea.value.slice(offset, offset + 1) || '.';
  mirror.appendChild(marker);
  document.body.appendChild(mirror);
  const box = {
    top: textarea.clientTop + marker.offsetTop - textarea.scrollTop,
    left: textarea.clientLeft + marker.offsetLeft - textarea.scrollLeft,
    height: lineHeightOf(style),
  };
  mirror.remove();
  return box;
}

/** Texts longer than this are checked by the core only on Apply. */
const CORE_CHECK_MAX_CHARS = 1_000_000;

/** The text's problems as listed under it, each with the problem itself for finding its place. */
function checkText(text: string): { readonly problem: ScenarioProblem; readonly label: string }[] {
  return scenarioTextProblems(text).map((problem) => ({ problem, label: describeAt(text, problem, formatProblem(problem)) }));
}

/**
 * The scenario as JSON: edit and apply. The text is checked against the schema as
 * it is typed (never changed by the check), field names are suggested from the
 * schema, and bad input applied is explained; the text is kept.
 */
export function ScenarioEditor({ store, controller }: { store: AppStore; controller: Controller }) {
  const text = useAppState(store, (s) => s.scenarioText);
  const appliedText = useAppState(store, (s) => s.fileText);
  const playingLog = useAppState(store, (s) => s.scenarioId === 'log');
  const setAside = useAppState(store, (s) => s.setAsideEdit);
  const problems = useAppState(store, (s) => s.problems);
  const status = useAppState(store, (s) => s.status);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const fieldRef = useRef<HTMLDivElement>(null);
  const refusalRef = useRef<HTMLDivElement>(null);
  /** Where the cursor goes once the store's text is back in the textarea. */
  const pendingCursor = useRef<number | undefined>(undefined);
  const [suggest, setSuggest] = useState<Suggest | undefined>(undefined);
  // Where the caret is, in the lines the problems name (the textarea wraps long lines).
  const [caret, setCaret] = useState<{ readonly line: number; readonly column: number } | undefined>(undefined);
  const noteCaret = (textarea: HTMLTextAreaElement) => setCaret(lineColumnOf(textarea.value, textarea.selectionStart));
  const listId = useId();
  const optionId = (index: number) => `${listId}-option-${index}`;

  // The text as last checked: it follows the typed text once typing pauses.
  const [checkedText, setCheckedText] = useState(text);
  useEffect(() => {
    if (text === checkedText) return undefined;
    const timer = window.setTimeout(() => setCheckedText(text), CHECK_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [text, checkedText]);
  const schemaCheck = useMemo(() => checkText(checkedText), [checkedText]);
  const started = text !== '' || appliedText !== '';
  const applied = checkedText === appliedText;
  // Text the schema accepts goes to the core too, which checks what Apply would (a
  // kernel out of range, CPU lists, programs), so that "Valid" means it would load.
  /** The text of the last Apply, so that its refusal is not shown as the text's once that changes. */
  const [attempted, setAttempted] = useState<string | undefined>(undefined);
  const [coreCheck, setCoreCheck] = useState<{ readonly text: string; readonly problems: readonly ScenarioProblem[] } | undefined>(undefined);
  // A very long text (a re-simulated log's workload) is left to Apply: each pause in typing would copy it whole.
  const askCore = schemaCheck.length === 0 && !applied && checkedText.trim() !== '' && checkedText.length <= CORE_CHECK_MAX_CHARS;
  useEffect(() => {
    if (!askCore) return undefined;
    let current = true;
    controller.checkScenario(checkedText).then(
      (problems) => {
        if (current) setCoreCheck({ text: checkedText, problems });
      },
      // The engine could not check it (restarting): Apply will, so the schema's word stands.
      () => {
        if (current) setCoreCheck({ text: checkedText, problems: [] });
      },
    );
    return () => {
      current = false;
    };
  }, [askCore, checkedText, controller]);
  const coreAnswered = askCore && coreCheck?.text === checkedText;
  const check = useMemo(
    () => (coreAnswered && coreCheck ? coreCheck.problems.map((problem) => ({ problem, label: describeAt(checkedText, problem, formatProblem(problem)) })) : schemaCheck),
    [coreAnswered, coreCheck, checkedText, schemaCheck],
  );
  const checking = askCore && !coreAnswered;

  useLayoutEffect(() => {
    const cursor = pendingCursor.current;
    const textarea = textareaRef.current;
    if (cursor === undefined || !textarea || textarea.value !== text) return;
    pendingCursor.current = undefined;
    textarea.setSelectionRange(cursor, cursor);
    setCaret(lineColumnOf(textarea.value, cursor));
  }, [text]);

  useEffect(() => {
    if (suggest) document.getElementById(`${listId}-option-${suggest.active}`)?.scrollIntoView({ block: 'nearest' });
  }, [suggest, listId]);

  /** Offers the field names that fit at the cursor, or closes the list when none do. */
  const offer = (value: string, cursor: number, open: boolean) => {
    const textarea = textareaRef.current;
    const field = fieldRef.current;
    const found = suggestionsAt(scenarioSchema, value, cursor);
    if (!textarea || !field || !found || found.suggestions.length === 0) {
      setSuggest(undefined);
      return;
    }
    if (!open && !suggest) return;
    const caret = caretBox(textarea, found.context.from);
    const width = Math.min(SUGGEST_WIDTH, field.clientWidth);
    const top = Math.min(Math.max(caret.top, 0), textarea.clientHeight - caret.height) + caret.height + 2;
    const left = Math.max(0, Math.min(caret.left, field.clientWidth - width));
    const previous = suggest?.items[suggest.active]?.name;
    const active = Math.max(0, found.suggestions.findIndex((item) => item.name === previous));
    setSuggest({ items: found.suggestions, active, top: textarea.offsetTop + top, left: textarea.offsetLeft + left, width });
  };

  const insert = (name: string) => {
    const textarea = textareaRef.current;
    setSuggest(undefined);
    if (!textarea) return;
    const context = keyContextAt(textarea.value, textarea.selectionStart);
    if (!context) return;
    const done = insertField(textarea.value, context, name);
    textarea.focus();
    textarea.setSelectionRange(context.from, context.to);
    // As typing would (so Undo takes it back); else straight into the store.
    const typed = document.execCommand('insertText', false, done.text.slice(context.from, done.cursor));
    if (!typed || textarea.value !== done.text) {
      pendingCursor.current = done.cursor;
      controller.editText(done.text);
    }
  };

  const goTo = (problem: ScenarioProblem) => {
    const textarea = textareaRef.current;
    if (!textarea) return;
    setSuggest(undefined);
    const offset = problemOffset(textarea.value, problem);
    textarea.focus({ preventScroll: true });
    textarea.setSelectionRange(offset, offset);
    noteCaret(textarea);
    const caret = caretBox(textarea, offset);
    textarea.scrollTop += caret.top - textarea.clientHeight / 3;
    textarea.scrollIntoView({ block: 'nearest' });
  };

  const onChange = (event: ChangeEvent<HTMLTextAreaElement>) => {
    const { value, selectionStart } = event.target;
    controller.editText(value);
    const input = event.nativeEvent as InputEvent;
    const typedNameStart = input.inputType === 'insertText' && /^["A-Za-z_$]$/.test(input.data ?? '');
    if (typedNameStart || suggest) offer(value, selectionStart, typedNameStart);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    const textarea = event.currentTarget;
    if (event.ctrlKey && (event.key === ' ' || event.code === 'Space')) {
      event.preventDefault();
      offer(textarea.value, textarea.selectionStart, true);
      return;
    }
    if (!suggest) return;
    const count = suggest.items.length;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        event.preventDefault();
        setSuggest({ ...suggest, active: (suggest.active + (event.key === 'ArrowDown' ? 1 : count - 1)) % count });
        break;
      case 'Enter':
      case 'Tab': {
        const chosen = suggest.items[suggest.active];
        if (!chosen || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) break;
        event.preventDefault();
        insert(chosen.name);
        break;
      }
      case 'Escape':
        event.preventDefault();
        setSuggest(undefined);
        break;
      case 'ArrowLeft':
      case 'ArrowRight':
      case 'Home':
      case 'End':
      case 'PageUp':
      case 'PageDown':
        setSuggest(undefined);
        break;
    }
  };

  // A refusal of the text as it stands lists what the check above already lists:
  // the alert then only says so, and keeps its list for screen readers.
  const refusedAbove =
    attempted === text &&
    checkedText === text &&
    check.length === problems.length &&
    check.every(({ problem }, index) => {
      const refused = problems[index];
      return refused !== undefined && formatProblem(problem) === formatProblem(refused);
    });

  let summary: string;
  if (checking) summary = 'Checking with the simulator…';
  else if (check.length === 0 && playingLog) summary = 'Valid. A replayed log is playing, not this text: Apply runs this scenario instead.';
  else if (check.length === 0) summary = applied ? 'Valid: this is the scenario running.' : 'Valid: Apply to run it (not yet applied).';
  else summary = `${check.length} problem${check.length === 1 ? '' : 's'} in the text${applied ? '' : ' (not applied)'}: click one to go to it.`;

  return (
    <section className="panel editor" aria-labelledby="editor-title">
      <h2 id="editor-title">Scenario JSON</h2>
      <p className="muted">
        Edit any field (machine, workloads, knobs, seed) and apply. The format is described by{' '}
        <a href={SCHEMA_URL} target="_blank" rel="noopener noreferrer">
          <code>scenarios/scenario.schema.json</code>
        </a>
        ; Ctrl+Space (or typing a quote where a field goes) suggests field names from it. The Policy panel&apos;s settings run on top of
        the applied text; applying new text starts from the file&apos;s own policy.
      </p>
      {setAside && (
        <div className="set-aside" role="status">
          <span>
            Your unapplied edit of {setAside.from} was set aside when another scenario loaded ({setAside.text.length.toLocaleString('en-US')} characters).
          </span>
          <button type="button" onClick={() => controller.restoreSetAside()}>
            Put it back in the editor
          </button>
          <button type="button" onClick={() => controller.discardSetAside()}>
            Discard it
          </button>
        </div>
      )}
      <div className="editor-field" ref={fieldRef}>
        <textarea
          ref={textareaRef}
          aria-label="Scenario JSON"
          aria-autocomplete="list"
          aria-controls={suggest ? listId : undefined}
          aria-activedescendant={suggest ? optionId(suggest.active) : undefined}
          spellCheck={false}
          value={text}
          onChange={onChange}
          onKeyDown={onKeyDown}
          onClick={() => setSuggest(undefined)}
          onSelect={(event) => noteCaret(event.currentTarget)}
          onBlur={() => setSuggest(undefined)}
          rows={16}
        />
        {suggest && (
          <div className="suggest" style={{ top: suggest.top, left: suggest.left, width: suggest.width }}>
            <ul role="listbox" id={listId} aria-label="Field suggestions">
              {suggest.items.map((item, index) => (
                <li
                  key={item.name}
                  id={optionId(index)}
                  role="option"
                  aria-selected={index === suggest.active}
                  title={item.description}
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => insert(item.name)}
                >
                  <span className="suggest-name">{item.name}</span>{' '}
                  <span className="suggest-type">
                    {item.type}
                    {item.required ? ', required' : ''}
                  </span>{' '}
                  <span className="suggest-description">{item.description}</span>
                </li>
              ))}
            </ul>
            <p className="suggest-hint" aria-hidden="true">
              ↑ ↓ to choose · Enter or Tab to insert · Esc to close
            </p>
          </div>
        )}
      </div>
      {/* Apply right under the text, above the check: the check's list changes as typing
          pauses, and a button below it would move under the pointer as it is clicked. */}
      <div className="editor-actions">
        <button
          type="button"
          onClick={() => {
            const attempt = store.get().scenarioText;
            setAttempted(attempt);
            void controller.load('custom', attempt).then((loaded) => {
              // A refusal below the fold would go unseen: bring it into view.
              if (!loaded) requestAnimationFrame(() => refusalRef.current?.scrollIntoView({ block: 'nearest' }));
            });
          }}
          disabled={status === 'loading'}
        >
          Apply scenario
        </button>
        {caret && (
          <p className="editor-caret" data-testid="editor-caret" aria-hidden="true">
            line {caret.line}, column {caret.column}
          </p>
        )}
      </div>
      {started && (
        <div className={`editor-check${text === checkedText && !checking ? '' : ' checking'}`}>
          <p role="status" aria-label="Text check" className={check.length === 0 ? 'check-ok' : 'check-bad'}>
            {summary}
          </p>
          {check.length > 0 && (
            <ul aria-label="Problems in the text">
              {check.map(({ problem, label }) => (
                <li key={label}>
                  <button type="button" title="Put the cursor there" onClick={() => goTo(problem)}>
                    <code>{label}</code>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {problems.length > 0 && (
        <div role="alert" className="problems" ref={refusalRef}>
          {attempted !== undefined && attempted !== text ? (
            <p>
              Your last Apply was refused: {problems.length} problem{problems.length === 1 ? '' : 's'} in the text as it was then. The text has changed since; the check above is for it as it is now.
            </p>
          ) : (
            <p>
              {refusedAbove
                ? `The scenario was not loaded because of the ${problems.length === 1 ? 'problem' : `${problems.length} problems`} listed above.`
                : `The scenario was not loaded: ${problems.length} problem${problems.length === 1 ? '' : 's'}.`}
              {status === 'ready' && ' Your edit was not applied; the previous run is still loaded and plays.'}
            </p>
          )}
          <div className={refusedAbove ? 'sr-only' : undefined}>
            <ProblemList problems={problems} />
          </div>
        </div>
      )}
    </section>
  );
}
