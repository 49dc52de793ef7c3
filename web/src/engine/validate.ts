/**
 * Scenario validation against the committed JSON Schema (generated from the Rust
 * types), with messages in the same `path: message` form as the CLI's.
 */
import type { ErrorObject } from 'ajv/dist/2020';
// Generated from the schema at build time (web/vite.config.ts): no schema compiled at run time.
import validateScenario from 'virtual:scenario-validator';
import schema from '../../../scenarios/scenario.schema.json';
import type { ScenarioProblem } from './protocol';
import { fieldSuggestions, syntaxErrorOffset, writtenScalar } from '../store/completion';
import { editDistance, lineColumnOf } from '../base/text';

/** The committed scenario schema: the Policy panel builds its controls from it. */
export const scenarioSchema: unknown = schema;


/** `/workloads/0/kind` → `workloads.0.kind`. */
export function dotted(pointer: string): string {
  return pointer
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A value as the problem quotes it: a number as the text wrote it, when there is
 * text, since JSON.parse rounds past 2^53 (`18446744073709551616` reads as
 * `18446744073709552000`) and reads past a double's range as `Infinity`, which JSON
 * shows as `null`.
 */
function quote(value: unknown, path: string, text: string | undefined): string {
  if (typeof value !== 'number' || text === undefined) return show(value);
  const written = writtenScalar(text, path);
  return written !== undefined && JSON_NUMBER.test(written) ? written : show(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

function article(type: string): string {
  if (type === 'integer' || type === 'object' || type === 'array') return `an ${type}`;
  if (type === 'null') return 'null';
  return `a ${type}`;
}

function valueAt(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  for (const segment of dotted(pointer).split('.').filter((s) => s !== '')) {
    if (node !== null && typeof node === 'object') {
      node = (node as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return node;
}

const TAG_FIELDS = new Set(['kind', 'op', 'dist']);

/** Whether an error says "this alternative's tag is not the one the object has". */
function isTagMismatch(error: ErrorObject, oneOfPath: string): boolean {
  if (error.keyword !== 'const' && error.keyword !== 'enum') return false;
  const at = dotted(error.instancePath);
  // A string enum whose choices are documented one by one (`oneOf` of consts): the
  // value itself is the tag.
  if (at === oneOfPath) return true;
  const rest = at.slice(oneOfPath.length).replace(/^\./, '');
  return TAG_FIELDS.has(rest) && !rest.includes('.');
}

/**
 * Narrows errors inside a `oneOf` to the alternative whose tag matched; reports the
 * valid tags when none did. Ajv reports each alternative's errors, then the `oneOf`.
 */
function narrow(errors: readonly ErrorObject[]): ErrorObject[] {
  const oneOfs = errors.filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf');
  if (oneOfs.length === 0) return [...errors];
  let kept = [...errors];
  // Innermost first, so nested alternatives are narrowed before their parents.
  const ordered = [...oneOfs].sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const oneOf of ordered) {
    const prefix = `${oneOf.schemaPath}/`;
    const inside = kept.filter((error) => error.schemaPath.startsWith(prefix));
    const branchOf = (error: ErrorObject) => error.schemaPath.slice(prefix.length).split('/')[0] ?? '';
    const path = dotted(oneOf.instancePath);
    const mismatched = new Set(inside.filter((error) => isTagMismatch(error, path)).map(branchOf));
    const branches = new Set(inside.map(branchOf));
    const matching = [...branches].filter((branch) => !mismatched.has(branch));
    kept = kept.filter((error) => error !== oneOf && !inside.includes(error));
    if (matching.length === 1) {
      kept.push(...inside.filter((error) => branchOf(error) === matching[0]));
    } else {
      const tags = inside
        .filter((error) => isTagMismatch(error, path))
        .map((error) => show(error.keyword === 'const' ? error.params.allowedValue : error.params.allowedValues));
      const tagError = inside.find((error) => isTagMismatch(error, path));
      kept.push({
        ...oneOf,
        instancePath: tagError ? tagError.instancePath : oneOf.instancePath,
        keyword: 'x-tags',
        params: { tags: [...new Set(tags)] },
      });
    }
  }
  return kept;
}

function describe(error: ErrorObject, root: unknown, text: string | undefined): ScenarioProblem[] {
  const path = dotted(error.instancePath);
  const value = valueAt(root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'minimum':
      return [{ path, message: `must be at least ${String(params.limit)}, got ${quote(value, path, text)}` }];
    case 'maximum':
      return [{ path, message: `must be at most ${String(params.limit)}, got ${quote(value, path, text)}` }];
    case 'minLength':
      return [{ path, message: `must be at least ${String(params.limit)} characters long, got ${show(value)}` }];
    case 'maxLength':
      return [{ path, message: `must be at most ${String(params.limit)} characters long, got ${show(value)}` }];
    case 'minItems':
      return [{ path, message: `must have at least ${String(params.limit)} entries` }];
    case 'required':
      return [{ path: join(path, String(params.missingProperty)), message: 'is required' }];
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      const place = fieldBelongs(field, path);
      if (place) return [{ path: join(path, field), message: `is not a known field ("${field}" belongs ${place})` }];
      const guess = closestField(field, siblingFields(root, error.instancePath));
      return [{ path: join(path, field), message: `is not a known field${guess ? ` (did you mean "${guess}"?)` : ''}` }];
    }
    case 'type': {
      const expected = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
      return [{ path, message: `must be ${article(expected)}, got ${typeName(value)}` }];
    }
    case 'enum':
      return [
        {
          path,
          message: `must be one of ${(params.allowedValues as unknown[]).map(show).join(', ')}, got ${quote(value, path, text)}`,
        },
      ];
    case 'const':
      return [{ path, message: `must be ${show(params.allowedValue)}, got ${quote(value, path, text)}` }];
    case 'x-tags': {
      const tags = params.tags as string[];
      if (tags.length === 0) return [{ path, message: 'does not match any of the allowed forms' }];
      return [{ path, message: `must be one of ${tags.join(', ')}, got ${quote(value, path, text)}` }];
    }
    default:
      return [{ path, message: error.message ?? 'is not valid' }];
  }
}

/**
 * Where in a scenario each field name is known: the paths of the objects whose
 * schema lists it (`[]` the top level, `['policy', 'shared_runq']`; an array's items
 * are `N`). A `$ref` already being expanded is not entered again (programs nest).
 */
const FIELD_PLACES: ReadonlyMap<string, readonly (readonly string[])[]> = (() => {
  const places = new Map<string, string[][]>();
  const visit = (node: unknown, path: string[], refs: string[]) => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    const map = node as Record<string, unknown>;
    const target = map.$ref;
    if (typeof target === 'string' && !refs.includes(target)) {
      const resolved = target
        .replace(/^#\/?/, '')
        .split('/')
        .filter((step) => step !== '')
        .reduce<unknown>((at, step) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[step.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), schema);
      visit(resolved, path, [...refs, target]);
    }
    const properties = map.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [name, child] of Object.entries(properties)) {
        const here = places.get(name) ?? [];
        if (!here.some((place) => place.join('.') === path.join('.'))) here.push([...path]);
        places.set(name, here);
        visit(child, [...path, name], refs);
      }
    }
    if ('items' in map) visit(map.items, [...path, 'N'], refs);
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const branches = map[key];
      if (Array.isArray(branches)) branches.forEach((branch) => visit(branch, path, refs));
    }
  };
  visit(schema, [], []);
  return places;
})();

/**
 * Every field name the schema knows, anywhere in a scenario: alphabetical, so that
 * of two as close, the first is taken, as the CLI takes it.
 */
const FIELD_NAMES: readonly string[] = [...FIELD_PLACES.keys()].sort();

/**
 * Where a field put in the wrong object belongs: of the places the schema knows
 * `field` (other than `object`, the dotted path of the object it is in), the one
 * sharing the most leading steps with `object`, then the shortest. An array index
 * stands for `N`, and `N` in the answer takes the index of `object` where they
 * share the step. "at the top level", "in policy.shared_runq"; none if the field
 * is known nowhere. The CLI says the same.
 */
export function fieldBelongs(field: string, object: string): string | undefined {
  const steps = object.split('.').filter((step) => step !== '');
  const pattern = steps.map((step) => (/^\d+$/.test(step) ? 'N' : step));
  const shared = (place: readonly string[]) => {
    let count = 0;
    while (count < place.length && count < pattern.length && place[count] === pattern[count]) count += 1;
    return count;
  };
  const key = (place: readonly string[]) => place.join('.');
  const candidates = (FIELD_PLACES.get(field) ?? []).filter((place) => key(place) !== pattern.join('.'));
  if (candidates.length === 0) return undefined;
  const best = [...candidates].sort((a, b) => shared(b) - shared(a) || a.length - b.length || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))[0];
  if (!best) return undefined;
  if (best.length === 0) return 'at the top level';
  const kept = shared(best);
  return `in ${best.map((step, at) => (at < kept ? (steps[at] ?? step) : step)).join('.')}`;
}

/**
 * The fields the schema allows in the object at `pointer` of `root` (its form
 * chosen by its tag, as the editor's completion chooses it).
 */
function siblingFields(root: unknown, pointer: string): readonly string[] | undefined {
  const object = valueAt(root, pointer);
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return undefined;
  const values = Object.fromEntries(Object.entries(object).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const path = pointer
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  const names = fieldSuggestions(schema, path, { values }).map((suggestion) => suggestion.name);
  return names.length > 0 ? [...names].sort() : undefined;
}

/**
 * The field name a mistyped one most likely meant, among `siblings` (the fields its
 * object may have) or, when those are not known, every field of the schema: within
 * two edits (one for short names), else none. The CLI says the same.
 */
export function closestField(field: string, siblings?: readonly string[]): string | undefined {
  const limit = field.length <= 4 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const name of siblings ?? FIELD_NAMES) {
    if (name === field) continue;
    const distance = editDistance(field.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Parses scenario text; on failure, says where. */
export function parseScenarioText(text: string): { value: unknown } | { problems: ScenarioProblem[] } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problems: [{ path: '', message: `not valid JSON: ${syntaxMessage(text, message)}` }] };
  }
}

/**
 * The JSON engine's message with its character position turned into a line and
 * column (`Expected ',' or '}' after property value, at line 6, column 3`), and,
 * when a line starts where a comma was expected, a word about the line before,
 * where the comma is missing.
 */
function syntaxMessage(text: string, message: string): string {
  const match = /position (\d+)/.exec(message);
  if (!match) return unplacedMessage(text, message);
  const position = Math.min(Number(match[1]), text.length);
  const bare = message.replace(/\s*(in JSON )?at position \d+(\s*\(line \d+ column \d+\))?/, '');
  const { line, column } = lineColumnOf(text, position);
  const missingComma = /^Expected ','/.test(bare) && line > 1 && text.slice(position - column + 1, position).trim() === '';
  return `${bare}, at line ${line}, column ${column}${missingComma ? ' (a comma missing at the end of the line before?)' : ''}`;
}

/**
 * A syntax error whose message gives no position (the browser's `Unexpected token
 * 'N', ..."seed": NaN..." names none): found by scanning the text, and said in words
 * with its line and column; at the end of the text, that the text ends too soon.
 */
function unplacedMessage(text: string, message: string): string {
  const offset = syntaxErrorOffset(text);
  if (offset === undefined) return message;
  if (offset >= text.trimEnd().length) return endMessage(text) ?? message;
  const { line, column } = lineColumnOf(text, offset);
  return `${unexpected(text, offset)}, at line ${line}, column ${column}`;
}

/** What JSON does not allow at `offset`, in words. */
function unexpected(text: string, offset: number): string {
  if (text[offset] === '\ufeff') return 'a byte-order mark (U+FEFF), which JSON does not allow';
  if (text.startsWith('//', offset) || text.startsWith('/*', offset)) return 'a comment, which JSON does not allow';
  const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(offset))?.[0];
  if (word !== undefined) {
    return `\`${word.slice(0, 24)}\` is not a JSON value (its words are true, false and null, and text goes in double quotes)`;
  }
  const char = text[offset] ?? '';
  return `unexpected \`${char}\` here`;
}

/**
 * JSON.parse names no position when the text ends too soon: say so, and where the
 * text ends (or that there is no text at all).
 */
function endMessage(text: string): string | undefined {
  const content = text.trimEnd();
  if (content === '') return 'the text is empty; a scenario is a JSON object, such as one of the shipped scenarios';
  const { line, column } = lineColumnOf(content, content.length);
  const open = openBrackets(content);
  const hint = open > 0 ? ` (${open} bracket${open === 1 ? '' : 's'} left open?)` : '';
  return `the text ends before its JSON does, at line ${line}, column ${column}${hint}`;
}

/** Brackets and braces opened and not closed, outside strings. */
function openBrackets(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return depth;
}

/**
 * Schema problems of a parsed scenario, deduplicated, in document order; given the
 * text it was parsed from, a number is quoted as written.
 */
export function schemaProblems(value: unknown, text?: string): ScenarioProblem[] {
  if (validateScenario(value)) return [];
  const problems = narrow(validateScenario.errors ?? []).flatMap((error) => describe(error, value, text));
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Everything wrong with scenario text: its JSON syntax, else its schema problems (empty when valid). */
export function scenarioTextProblems(text: string): ScenarioProblem[] {
  const parsed = parseScenarioText(text);
  return 'problems' in parsed ? parsed.problems : schemaProblems(parsed.value, text);
}

export function formatProblem(problem: ScenarioProblem): string {
  return problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`;
}
