/**
 * Keeping the last session in `localStorage`: the run's scenario (by name, or its
 * text), the Policy panel's overrides, the speed, and the editor's text whatever it
 * holds (even JSON that does not parse), so a reload loses nothing the user typed.
 * A share link in the URL wins over what was kept. Pure apart from the `Storage`
 * passed in, whose failures (private mode, quota) are swallowed: keeping is a
 * convenience, never a reason for the app to fail.
 */
import type { ScenarioProblem } from '../engine/protocol';
import { defaultSession, readOverrides, sourceOf, type DecodedLink, type SessionState, type ShareContext, type ScenarioSource } from './share';
import { NO_DRAFTS, type AppState, type Drafts } from './app';
import { runText, type PolicyOverrides } from './policy';

export const KEEP_KEY = 'schedlab.session';
/** Bumped when the saved shape changes; an older shape is read as far as it fits. */
export const KEEP_FORMAT = 1;

/** The part of `Storage` this uses (so tests pass a plain map). */
export type KeepStorage = Pick<Storage, 'getItem' | 'setItem'>;

/** What is written: plain JSON. */
export interface KeptSession {
  readonly format: number;
  readonly scenario: ScenarioSource;
  readonly overrides: PolicyOverrides;
  /** The speed as its factor (`0.01`), which outlives a change to the list of speeds. */
  readonly speed: number;
  /** The editor's text, exactly as typed. */
  readonly editorText: string;
  /** In compare mode, run B's overrides. */
  readonly compare?: PolicyOverrides;
}

/** The fields of the app's state that are kept; a change to any of them is saved. */
export type KeptFields = Pick<AppState, 'scenarioId' | 'fileText' | 'scenarioText' | 'policyOverrides' | 'speedIndex'>;

/** What to keep of the app's state; undefined until a scenario has loaded. */
export function keptSession(state: KeptFields, context: ShareContext, compare?: PolicyOverrides): KeptSession | undefined {
  if (state.fileText === '') return undefined;
  return {
    ...(compare ? { compare } : {}),
    format: KEEP_FORMAT,
    scenario: sourceOf(state.scenarioId, state.fileText, context.scenarios),
    overrides: state.policyOverrides,
    speed: context.speeds[state.speedIndex] ?? context.speeds[context.defaultSpeedIndex] ?? 0,
    editorText: state.scenarioText,
  };
}

export function saveSession(storage: KeepStorage, session: KeptSession): void {
  try {
    storage.setItem(KEEP_KEY, JSON.stringify(session));
  } catch {
    // Full or forbidden storage: the session is simply not kept.
  }
}

/** A kept session read back: what to open, the editor's text, and what could not be restored. */
export interface RestoredSession {
  readonly state: SessionState;
  readonly editorText: string | undefined;
  readonly problems: readonly ScenarioProblem[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Kept overrides as `PATH=VALUE` entries, objects as JSON (what is not a setting value is dropped). */
function overrideEntries(record: Record<string, unknown>): string[] {
  return Object.entries(record).flatMap(([path, setting]) =>
    typeof setting === 'boolean' || typeof setting === 'number' || typeof setting === 'string'
      ? [`${path}=${String(setting)}`]
      : isRecord(setting)
        ? [`${path}=${JSON.stringify(setting)}`]
        : [],
  );
}

/**
 * The kept session, or undefined when nothing (usable) was kept. A part that no
 * longer fits this build (a scenario since removed, a setting the schema dropped)
 * is a problem and falls back; the editor's text is always given back.
 */
export function loadSession(storage: KeepStorage, context: ShareContext): RestoredSession | undefined {
  let raw: string | null;
  try {
    raw = storage.getItem(KEEP_KEY);
  } catch {
    return undefined;
  }
  if (raw === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const problems: ScenarioProblem[] = [];
  const fallback = defaultSession(context);
  const editorText = typeof value.editorText === 'string' ? value.editorText : undefined;

  let speedIndex = fallback.speedIndex;
  if (typeof value.speed === 'number') {
    const index = context.speeds.indexOf(value.speed);
    if (index >= 0) speedIndex = index;
  }

  let scenario: ScenarioSource | undefined;
  const source = value.scenario;
  if (isRecord(source) && source.kind === 'bundled' && typeof source.id === 'string') {
    if (context.scenarios.some((candidate) => candidate.id === source.id)) scenario = { kind: 'bundled', id: source.id };
    else problems.push({ path: 'scenario', message: `the scenario \`${source.id}\` of your last session is no longer bundled; opened ${context.defaultScenarioId}` });
  } else if (isRecord(source) && source.kind === 'text' && typeof source.text === 'string') {
    scenario = { kind: 'text', text: source.text };
  }
  if (!scenario) return { state: { ...fallback, speedIndex }, editorText, problems };

  const entries = isRecord(value.overrides) ? overrideEntries(value.overrides) : [];
  const read = readOverrides(entries, context.controls, 'policy');
  problems.push(...read.problems);
  let compare: PolicyOverrides | undefined;
  if (isRecord(value.compare)) {
    const readB = readOverrides(overrideEntries(value.compare), context.controls, 'compare');
    problems.push(...readB.problems);
    compare = readB.overrides;
  }
  return { state: { scenario, overrides: read.overrides, seed: undefined, speedIndex, playhead: undefined, ...(compare ? { compare } : {}) }, editorText, problems };
}

/** Where the app starts from, and what to tell the user about it. */
export interface StartupPlan {
  readonly from: 'link' | 'kept' | 'default';
  readonly state: SessionState;
  /** Editor text to put back after the run has loaded (the kept session's, when it differs). */
  readonly editorText: string | undefined;
  readonly problems: readonly ScenarioProblem[];
}

/** A link with state wins; else the kept session; else the default scenario. */
export function startupPlan(link: DecodedLink | undefined, kept: RestoredSession | undefined, context: ShareContext): StartupPlan {
  if (link?.hasState) return { from: 'link', state: link.state, editorText: undefined, problems: link.problems };
  if (kept) return { from: 'kept', state: kept.state, editorText: kept.editorText, problems: kept.problems };
  return { from: 'default', state: defaultSession(context), editorText: undefined, problems: [] };
}

/** How the set-aside note names the scenario an edit was of (`custom`: edited text). */
export function editedName(id: string): string {
  return id === 'custom' ? 'the edited scenario' : id === 'log' ? "the log's scenario" : id;
}

/**
 * The edit a kept session had not applied, which a link with state is about to replace:
 * its editor text when that is neither the scenario's file nor the run it had loaded
 * (the file with the session's overrides), with the name the set-aside note gives it.
 * A link pasted into an open tab sets the same edit aside (`controller.restore`).
 */
export function unappliedKeptEdit(kept: RestoredSession | undefined, context: ShareContext): { from: string; text: string } | undefined {
  const text = kept?.editorText;
  if (kept === undefined || text === undefined || text.trim() === '') return undefined;
  const source = kept.state.scenario;
  const fileText = source.kind === 'text' ? source.text : context.scenarios.find((candidate) => candidate.id === source.id)?.text;
  if (fileText !== undefined && (text === fileText || text === runText(fileText, kept.state.overrides))) return undefined;
  return { from: editedName(source.kind === 'text' ? 'custom' : source.id), text };
}

/** Whether two kept sessions are the same (so an unchanged state is not written again). */
export function sameKept(a: KeptFields | undefined, b: KeptFields): boolean {
  return (
    a !== undefined &&
    a.scenarioId === b.scenarioId &&
    a.fileText === b.fileText &&
    a.scenarioText === b.scenarioText &&
    a.policyOverrides === b.policyOverrides &&
    a.speedIndex === b.speedIndex
  );
}

/**
 * The panels' drafts are kept under a key of their own, so a pasted log too big for
 * the browser's storage costs only itself, never the session above.
 */
export const DRAFTS_KEY = 'schedlab.drafts';
/** A pasted log longer than this (in characters) is not kept: `localStorage` holds about 5 M per site. */
export const KEEP_TEXT_MAX = 1_000_000;

/** The drafts' fields of the app's state; a change to either is saved. */
export type DraftFields = Pick<AppState, 'drafts' | 'setAsideEdit'>;

/** What is written under `DRAFTS_KEY`: plain JSON. */
interface KeptDrafts {
  readonly format: number;
  readonly replayText?: string;
  readonly sweep?: { readonly vary: string; readonly seeds: string };
  readonly setAside?: { readonly from: string; readonly text: string };
}

/** Whether a pasted log is too long to be kept across a reload. */
export function tooLongToKeep(text: string): boolean {
  return text.length > KEEP_TEXT_MAX;
}

export function saveDrafts(storage: KeepStorage, fields: DraftFields): void {
  const { replayText, sweep } = fields.drafts;
  const kept: KeptDrafts = {
    format: KEEP_FORMAT,
    ...(replayText !== '' && !tooLongToKeep(replayText) ? { replayText } : {}),
    ...(sweep ? { sweep: { vary: sweep.vary, seeds: sweep.seeds } } : {}),
    ...(fields.setAsideEdit ? { setAside: { from: fields.setAsideEdit.from, text: fields.setAsideEdit.text } } : {}),
  };
  try {
    storage.setItem(DRAFTS_KEY, JSON.stringify(kept));
  } catch {
    // Full or forbidden storage: the drafts last for this page only.
  }
}

/** The kept drafts; what is missing or of the wrong shape reads as nothing typed. */
export function loadDrafts(storage: KeepStorage): DraftFields {
  let value: unknown;
  try {
    const raw = storage.getItem(DRAFTS_KEY);
    value = raw === null ? undefined : JSON.parse(raw);
  } catch {
    value = undefined;
  }
  if (!isRecord(value)) return { drafts: NO_DRAFTS, setAsideEdit: undefined };
  const { replayText, sweep, setAside } = value;
  const drafts: Drafts = {
    replayText: typeof replayText === 'string' ? replayText : '',
    sweep: isRecord(sweep) && typeof sweep.vary === 'string' && typeof sweep.seeds === 'string' ? { vary: sweep.vary, seeds: sweep.seeds } : undefined,
  };
  const setAsideEdit = isRecord(setAside) && typeof setAside.from === 'string' && typeof setAside.text === 'string' ? { from: setAside.from, text: setAside.text } : undefined;
  return { drafts, setAsideEdit };
}
