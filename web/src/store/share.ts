/**
 * Share links: the state needed to reproduce what the user sees (the scenario, by
 * name or as compressed text, the Policy panel's overrides, the seed, the speed and
 * the playhead) written into the URL's hash, and read back with every problem said
 * with the part of the link it is in. Pure: no React, no engine, no DOM beyond the
 * platform's `CompressionStream`.
 *
 * The hash is `#v=1&scenario=NAME&seed=N&speed=F&t=NS&e=EVENTS&set=PATH=VALUE...`
 * (and, in compare mode, `cmp=1&bset=PATH=VALUE...`: run B's overrides; and the
 * timeline's window when it is not the default: `view=START_NS:SPAN_NS`, or
 * `view=follow:SPAN_NS` for a zoomed window that follows the playhead),
 * or `text=...` (the scenario text, `deflate-raw` compressed and base64url encoded)
 * in place of `scenario` for an edited scenario. `set` takes a value as the CLI's
 * `--set` does, read by the Policy panel's control for that path.
 */
import type { ScenarioProblem } from '../engine/protocol';
import type { SimTimeNs } from '../base/types';
import { simTimeNs } from '../base/types';
import { unreachable } from '../base/types';
import { editDistance } from '../base/text';
import { parseControlInput, parseScenarioValue, settingText, type PolicyControl, type PolicyOverrides, type SettingValue } from './policy';
import { MAX_SPAN_NS, MIN_SPAN_NS, type TimelineView } from './timeline';

/** The link format this app writes; a link with a higher `v` was made by a newer app. */

/** A link's value as a message shows it: in backticks, or "nothing" when it is empty. */
function given(text: string): string {
  return text === '' ? 'nothing' : `\`${text}\``;
}

export const SHARE_FORMAT = 1;

/** Where a run comes from: a scenario shipped with the app, or text the user applied. */
export type ScenarioSource = { readonly kind: 'bundled'; readonly id: string } | { readonly kind: 'text'; readonly text: string };

/** How far the run has gone: the clock and the events handled (the latter pins a run paused mid-instant by Step). */
export interface Playhead {
  readonly timeNs: SimTimeNs;
  readonly events: number | undefined;
}

/** What a share link (or a saved session) holds. */
export interface SessionState {
  readonly scenario: ScenarioSource;
  readonly overrides: PolicyOverrides;
  /** The scenario's seed when the link was made: a link outlives a change to the file's seed. */
  readonly seed: number | undefined;
  readonly speedIndex: number;
  readonly playhead: Playhead | undefined;
  /** In compare mode, run B's overrides (on the same file); undefined when not comparing. */
  readonly compare?: PolicyOverrides;
  /** The timeline's window; undefined follows the playhead at the speed's width. */
  readonly view?: TimelineView;
}

/** What reading a link needs to know about this build of the app. */
export interface ShareContext {
  readonly scenarios: readonly { readonly id: string; readonly text: string }[];
  readonly defaultScenarioId: string;
  readonly controls: readonly PolicyControl[];
  /** Simulated time per real time, by speed index (`SPEEDS`). */
  readonly speeds: readonly number[];
  readonly defaultSpeedIndex: number;
}

export interface DecodedLink {
  /** False when the hash holds no share state at all (a plain address). */
  readonly hasState: boolean;
  /** What to open: the link's state with each bad part replaced by its default. */
  readonly state: SessionState;
  /** Each part of the link that was wrong, its `path` naming that part (`t`, `set policy.x`). */
  readonly problems: readonly ScenarioProblem[];
}

/** The parameters a share link may hold; a hash with none of them is not a share link. */
const KEYS = ['v', 'scenario', 'text', 'seed', 'speed', 't', 'e', 'set', 'cmp', 'bset', 'view'] as const;

export function defaultSession(context: ShareContext): SessionState {
  return {
    scenario: { kind: 'bundled', id: context.defaultScenarioId },
    overrides: {},
    seed: undefined,
    speedIndex: context.defaultSpeedIndex,
    playhead: undefined,
  };
}

/** The run's source: a bundled scenario when the text is that file's (the named one first), else the text. */
export function sourceOf(scenarioId: string, fileText: string, scenarios: ShareContext['scenarios']): ScenarioSource {
  const named = scenarios.find((scenario) => scenario.id === scenarioId && scenario.text === fileText);
  const same = named ?? scenarios.find((scenario) => scenario.text === fileText);
  return same ? { kind: 'bundled', id: same.id } : { kind: 'text', text: fileText };
}

/** A scenario text's `seed`, when it is JSON with a whole-number seed. */
export function seedOf(text: string): number | undefined {
  const value = parseScenarioValue(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const seed = (value as { readonly seed?: unknown }).seed;
  return typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0 ? seed : undefined;
}

/** The text with its `seed` set (unchanged, formatting and all, when it already has that seed or is not JSON). */
export function withSeed(text: string, seed: number | undefined): string {
  if (seed === undefined || seedOf(text) === seed) return text;
  const value = parseScenarioValue(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return text;
  return JSON.stringify({ ...value, seed }, null, 2);
}

// --- Compression and base64url -------------------------------------------------

async function pipeBytes(bytes: Uint8Array, transform: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of base64url text, or undefined when it is not base64url. */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Text as `deflate-raw` compressed base64url. */
export async function compressText(text: string): Promise<string> {
  return toBase64Url(await pipeBytes(new TextEncoder().encode(text), new CompressionStream('deflate-raw')));
}

/** The text `compressText` made, or why it cannot be read. */
export async function decompressText(encoded: string): Promise<{ readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string }> {
  const bytes = fromBase64Url(encoded);
  if (!bytes) return { ok: false, message: 'is not base64url text (the link may have been cut short or altered)' };
  let inflated: Uint8Array;
  try {
    inflated = await pipeBytes(bytes, new DecompressionStream('deflate-raw'));
  } catch {
    return { ok: false, message: 'does not decompress (the link may have been cut short or altered)' };
  }
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(inflated) };
  } catch {
    return { ok: false, message: 'decompresses to bytes that are not UTF-8 text' };
  }
}

// --- Writing a link --------------------------------------------------------------

/** The hash (with its `#`) that reproduces `state`. */
export async function encodeShareHash(state: SessionState, speeds: readonly number[]): Promise<string> {
  const params = new URLSearchParams();
  params.set('v', String(SHARE_FORMAT));
  const scenario = state.scenario;
  switch (scenario.kind) {
    case 'bundled':
      params.set('scenario', scenario.id);
      break;
    case 'text':
      params.set('text', await compressText(scenario.text));
      break;
    default:
      unreachable(scenario);
  }
  if (state.seed !== undefined) params.set('seed', String(state.seed));
  const speed = speeds[state.speedIndex];
  if (speed !== undefined) params.set('speed', String(speed));
  if (state.playhead) {
    params.set('t', String(Math.max(0, Math.round(state.playhead.timeNs))));
    if (state.playhead.events !== undefined) params.set('e', String(state.playhead.events));
  }
  for (const path of Object.keys(state.overrides).sort()) {
    const value = state.overrides[path];
    if (value !== undefined) params.append('set', `${path}=${settingText(value)}`);
  }
  const view = viewText(state.view);
  if (view !== undefined) params.set('view', view);
  if (state.compare) {
    params.set('cmp', '1');
    for (const path of Object.keys(state.compare).sort()) {
      const value = state.compare[path];
      if (value !== undefined) params.append('bset', `${path}=${settingText(value)}`);
    }
  }
  return `#${params.toString()}`;
}

/** The `view` parameter for a window; undefined for the default (following, the speed's width). */
export function viewText(view: TimelineView | undefined): string | undefined {
  if (!view || view.spanNs === undefined) return view && !view.follow ? `${Math.round(view.startNs)}:` : undefined;
  const span = Math.round(view.spanNs);
  return view.follow ? `follow:${span}` : `${Math.round(view.startNs)}:${span}`;
}

/** Reads a `view` parameter, or says what is wrong with it. */
export function readView(text: string): { readonly view: TimelineView } | { readonly problem: string } {
  const [start = '', span = ''] = text.split(':');
  const spanNs = span === '' ? undefined : Number(span);
  if (spanNs !== undefined && (!/^\d+$/.test(span) || spanNs < MIN_SPAN_NS || spanNs > MAX_SPAN_NS)) {
    return { problem: `the window's width must be whole nanoseconds from ${MIN_SPAN_NS} to ${MAX_SPAN_NS}, got ${given(span)}` };
  }
  if (start === 'follow') return { view: { follow: true, startNs: 0, spanNs } };
  if (!/^\d+$/.test(start) || !text.includes(':')) return { problem: `expected START_NS:SPAN_NS or follow:SPAN_NS, got ${given(text)}` };
  return { view: { follow: false, startNs: Number(start), spanNs } };
}

// --- Reading a link --------------------------------------------------------------

/**
 * Reads overrides given as `PATH=VALUE` text against the Policy panel's controls:
 * an unknown path or a value the control refuses is a problem (at `where PATH`),
 * and that override is left out; the rest are kept.
 */
export function readOverrides(
  entries: readonly string[],
  controls: readonly PolicyControl[],
  where: string,
): { readonly overrides: PolicyOverrides; readonly problems: readonly ScenarioProblem[] } {
  const overrides: Record<string, SettingValue> = {};
  const problems: ScenarioProblem[] = [];
  // A path set twice is read once, the first, as a link's other parts are.
  const first = new Map<string, string>();
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    if (equals <= 0) {
      problems.push({ path: where, message: `\`${entry}\` is not PATH=VALUE; ignored` });
      continue;
    }
    const path = entry.slice(0, equals);
    const raw = entry.slice(equals + 1);
    const earlier = first.get(path);
    if (earlier !== undefined) {
      problems.push({ path: `${where} ${path}`, message: `is set more than once; used the first, ${given(earlier)}, not ${given(raw)}` });
      continue;
    }
    first.set(path, raw);
    const control = controls.find((candidate) => candidate.path === path);
    if (!control) {
      problems.push({ path: `${where} ${path}`, message: `the scenario schema has no policy setting \`${path}\`${nearby(path, controls)}; ignored` });
      continue;
    }
    const parsed = parseControlInput(control, raw);
    if (parsed.ok) overrides[path] = parsed.value;
    else problems.push({ path: `${where} ${path}`, message: `${parsed.problem.message}; ignored` });
  }
  return { overrides, problems };
}

/** The settings next to an unknown path (same parent), to say what was probably meant. */
function nearby(path: string, controls: readonly PolicyControl[]): string {
  // A path named as the Policy panel shows it, without its `policy.` prefix.
  const prefixed = `policy.${path}`;
  if (controls.some((control) => control.path === prefixed)) return ` (did you mean \`${prefixed}\`?)`;
  const parent = path.slice(0, path.lastIndexOf('.') + 1);
  const siblings = parent === '' ? [] : controls.filter((control) => control.path.startsWith(parent)).map((control) => control.path);
  return siblings.length > 0 ? ` (there: ${siblings.join(', ')})` : '';
}

/** The part of a link a mistyped key most likely meant (`sed`: `seed`), if any. */
function nearestKey(key: string): string | undefined {
  const prefix = (known: string) => {
    let n = 0;
    while (n < key.length && key[n] === known[n]) n++;
    return n;
  };
  // One-letter parts (`v`, `t`, `e`) are near every short typo: they are not guessed.
  const near = KEYS.filter((known) => known.length >= 3)
    .map((known) => ({ known, distance: editDistance(key, known) }))
    .filter(({ known, distance }) => distance <= (known.length <= 4 ? 1 : 2))
    .sort((a, b) => a.distance - b.distance || prefix(b.known) - prefix(a.known));
  return near[0]?.known;
}

/** A non-negative whole number, as a link writes it. */
function wholeNumber(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Reads a share link's hash. Never fails: a part that is wrong is a problem saying
 * what and where, and the state falls back for that part (an unreadable scenario
 * falls back to the default scenario, from time 0, with no overrides).
 */
export async function decodeShareHash(hash: string, context: ShareContext): Promise<DecodedLink> {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const fallback = defaultSession(context);
  if (!KEYS.some((key) => params.has(key))) {
    const hasState = hash.replace(/^#/, '').trim() !== '';
    return {
      hasState,
      state: fallback,
      problems: hasState ? [{ path: 'link', message: 'holds no schedlab state (no `scenario` or `text`); opened the default scenario' }] : [],
    };
  }
  const problems: ScenarioProblem[] = [];
  // A part this version does not read (a typo, `sed=7`) is said, not silently dropped;
  // a part given twice is read once, the first.
  const seen = new Set<string>();
  for (const [key, value] of params) {
    if (!(KEYS as readonly string[]).includes(key)) {
      const near = nearestKey(key);
      problems.push({ path: key, message: `is not a part of a schedlab link; ignored${near ? ` (did you mean \`${near}\`?)` : ''}` });
    } else if (key !== 'set' && key !== 'bset' && seen.has(key)) {
      problems.push({ path: key, message: `is given more than once; used the first, ${given(params.get(key) ?? '')}, not ${given(value)}` });
    }
    seen.add(key);
  }
  if (params.has('text') && params.has('scenario')) {
    problems.push({ path: 'scenario', message: 'the link has both `text` and `scenario`; opened the text, which holds the scenario itself' });
  }

  const version = params.get('v');
  if (version !== null && version !== String(SHARE_FORMAT)) {
    const number = wholeNumber(version);
    problems.push({
      path: 'v',
      message:
        number !== undefined && number > SHARE_FORMAT
          ? `the link was made by a newer schedlab (format ${number}; this one reads ${SHARE_FORMAT}); read as format ${SHARE_FORMAT}`
          : `unknown link format \`${version}\`; read as format ${SHARE_FORMAT}`,
    });
  }

  const speedText = params.get('speed');
  let speedIndex = context.defaultSpeedIndex;
  if (speedText !== null) {
    const index = context.speeds.findIndex((factor) => String(factor) === speedText || factor === Number(speedText));
    if (index >= 0) speedIndex = index;
    else problems.push({ path: 'speed', message: `\`${speedText}\` is not one of the speeds (${context.speeds.join(', ')}); used the default` });
  }

  // The scenario: a bundled name, or compressed text.
  let scenario: ScenarioSource | undefined;
  const ANOTHER = ', with its own seed and settings from time 0 (the link\'s were for the scenario it named); only the speed was kept';
  const text = params.get('text');
  const name = params.get('scenario');
  if (text !== null) {
    const decoded = await decompressText(text);
    if (decoded.ok) scenario = { kind: 'text', text: decoded.text };
    else problems.push({ path: 'text', message: `the scenario text ${decoded.message}; opened ${context.defaultScenarioId} instead${ANOTHER}` });
  } else if (name !== null) {
    if (context.scenarios.some((candidate) => candidate.id === name)) scenario = { kind: 'bundled', id: name };
    else problems.push({ path: 'scenario', message: `there is no scenario \`${name}\` in this version of schedlab; opened ${context.defaultScenarioId} instead${ANOTHER}` });
  } else {
    problems.push({ path: 'scenario', message: `the link names no scenario (neither \`scenario\` nor \`text\`); opened ${context.defaultScenarioId}${ANOTHER}` });
  }
  if (!scenario) {
    // The rest described another scenario: only the speed still applies.
    return { hasState: true, state: { ...fallback, speedIndex }, problems };
  }

  let seed: number | undefined;
  const seedText = params.get('seed');
  if (seedText !== null) {
    seed = wholeNumber(seedText);
    if (seed === undefined) problems.push({ path: 'seed', message: `expected a whole number at least 0, got ${given(seedText)}; used the scenario's own seed` });
  }

  let playhead: Playhead | undefined;
  const timeText = params.get('t');
  // `e` counts events up to `t`: without a time it is not used either.
  const withEvents = params.has('e') ? ' (`e`, the events up to that time, was not used either)' : '';
  if (timeText === null && params.has('e')) {
    problems.push({ path: 'e', message: 'counts the events up to the time `t`, and the link has no `t`; ignored' });
  }
  if (timeText !== null) {
    // Written as whole nanoseconds, as `seed` and `e` are: `1.5e8` and `0x10` are not.
    const time = wholeNumber(timeText);
    if (/^-\d+$/.test(timeText)) {
      problems.push({ path: 't', message: `the time must be at least 0 ns, got ${timeText}; started at 0${withEvents}` });
    } else if (time === undefined) {
      problems.push({ path: 't', message: `expected a time in whole nanoseconds, got ${given(timeText)}; started at 0${withEvents}` });
    } else {
      let events: number | undefined;
      const eventsText = params.get('e');
      if (eventsText !== null) {
        events = wholeNumber(eventsText);
        if (events === undefined) problems.push({ path: 'e', message: `expected a whole number of events at least 0, got ${given(eventsText)}; ran to time t only` });
      }
      playhead = { timeNs: simTimeNs(time), events };
    }
  }

  const read = readOverrides(params.getAll('set'), context.controls, 'set');
  problems.push(...read.problems);
  let compare: PolicyOverrides | undefined;
  const cmp = params.get('cmp');
  if (cmp === '1') {
    const readB = readOverrides(params.getAll('bset'), context.controls, 'bset');
    problems.push(...readB.problems);
    compare = readB.overrides;
  } else if (cmp !== null) {
    problems.push({ path: 'cmp', message: `expected 1 (compare mode), got ${given(cmp)}; opened without compare mode` });
  } else if (params.has('bset')) {
    problems.push({ path: 'bset', message: 'run B settings without `cmp=1`; opened without compare mode' });
  }
  let view: TimelineView | undefined;
  const viewParam = params.get('view');
  if (viewParam !== null) {
    const read = readView(viewParam);
    if ('view' in read) view = read.view;
    else problems.push({ path: 'view', message: `${read.problem}; the timeline follows the playhead` });
  }
  return {
    hasState: true,
    state: { scenario, overrides: read.overrides, seed, speedIndex, playhead, ...(compare ? { compare } : {}), ...(view ? { view } : {}) },
    problems,
  };
}

/** A problem as one line: `t: the time must be at least 0 ns, got -5`. */
export function describeProblem(problem: ScenarioProblem): string {
  return problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`;
}

/** What the engine loads for a session: the scenario's id (`custom` for text) and text, with the session's seed. */
export function loadTarget(state: SessionState, context: ShareContext): { readonly id: string; readonly text: string; readonly part: 'scenario' | 'text' } {
  const scenario = state.scenario;
  switch (scenario.kind) {
    case 'bundled': {
      const bundled = context.scenarios.find((candidate) => candidate.id === scenario.id) ?? context.scenarios.find((candidate) => candidate.id === context.defaultScenarioId);
      return { id: bundled?.id ?? scenario.id, text: withSeed(bundled?.text ?? '', state.seed), part: 'scenario' };
    }
    case 'text':
      return { id: 'custom', text: withSeed(scenario.text, state.seed), part: 'text' };
    default:
      return unreachable(scenario);
  }
}

/** The part of the app's state a share link reproduces. */
export interface SharedFields {
  readonly scenarioId: string;
  readonly fileText: string;
  readonly policyOverrides: PolicyOverrides;
  readonly speedIndex: number;
  readonly frame: { readonly nowNs: SimTimeNs; readonly events: number } | undefined;
  readonly timelineView?: TimelineView;
}

/** What a share link made now would hold; undefined before a scenario has loaded. */
export function sessionOf(state: SharedFields, context: ShareContext): SessionState | undefined {
  if (state.fileText === '') return undefined;
  return {
    scenario: sourceOf(state.scenarioId, state.fileText, context.scenarios),
    overrides: state.policyOverrides,
    seed: seedOf(state.fileText),
    speedIndex: state.speedIndex,
    playhead: state.frame ? { timeNs: state.frame.nowNs, events: state.frame.events } : undefined,
    ...(state.timelineView && viewText(state.timelineView) !== undefined ? { view: state.timelineView } : {}),
  };
}
