/**
 * The scenario editor's text logic, pure (no React, no DOM): a tolerant scanner
 * over JSON as it is being typed, which says whether the cursor is where a field
 * name goes and in which object; the field names the scenario schema allows there;
 * inserting one; and where in the text a problem's path (or a syntax error) is.
 */
import type { ScenarioProblem } from '../engine/protocol';
import { lineColumnOf } from '../base/text';

/** A step of a JSON path: a field name, or an array index. */
export type PathSegment = string | number;

/** `['workloads', 0, 'kind']` → `workloads.0.kind`, the form problems use. */
export function dottedPath(path: readonly PathSegment[]): string {
  return path.map(String).join('.');
}

// ---------------------------------------------------------------------------
// The tolerant scanner.

interface Frame {
  readonly type: 'object' | 'array';
  readonly path: readonly PathSegment[];
  /** Offset of the `{` or `[`. */
  readonly open: number;
  /** Object: expecting a key, its colon, its value, or a comma after it. Array: a value, or a comma. */
  state: 'key' | 'colon' | 'value' | 'after';
  /** Object: the key whose value comes next. */
  key: string | undefined;
  /** Array: the index of the element that comes next. */
  index: number;
  /** Object: its keys, in order, with the offset each starts at. */
  readonly keys: { readonly name: string; readonly start: number }[];
  /** Object: its string-valued fields (where a tag such as `kind` is read). */
  readonly strings: Record<string, string>;
}

type TokenKind = 'open-object' | 'open-array' | 'close-object' | 'close-array' | 'colon' | 'comma' | 'string' | 'word';

interface Token {
  readonly kind: TokenKind;
  readonly start: number;
  /** Exclusive. */
  readonly end: number;
  /** Strings: where the content ends (the closing quote, or the end of an unterminated string). */
  readonly contentEnd: number;
  /** Strings: the decoded content; words: the word. */
  readonly text: string;
}

const PUNCTUATION: Record<string, TokenKind> = {
  '{': 'open-object',
  '[': 'open-array',
  '}': 'close-object',
  ']': 'close-array',
  ':': 'colon',
  ',': 'comma',
};

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function isSpace(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\r' || char === '\t';
}

/**
 * Splits text into JSON tokens without ever failing: an unterminated string ends
 * at the end of its line (JSON strings cannot hold a raw newline), anything else
 * that is not punctuation or a string is a word (numbers, literals, typos).
 */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    if (isSpace(char)) {
      i += 1;
      continue;
    }
    const punctuation = PUNCTUATION[char];
    if (punctuation) {
      tokens.push({ kind: punctuation, start: i, end: i + 1, contentEnd: i + 1, text: char });
      i += 1;
      continue;
    }
    if (char === '"') {
      const start = i;
      let content = '';
      i += 1;
      let closed = false;
      while (i < text.length) {
        const c = text[i] ?? '';
        if (c === '"') {
          closed = true;
          break;
        }
        if (c === '\n' || c === '\r') break;
        if (c === '\\') {
          const next = text[i + 1] ?? '';
          if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            content += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
            i += 6;
          } else {
            content += ESCAPES[next] ?? next;
            i += 2;
          }
          continue;
        }
        content += c;
        i += 1;
      }
      const contentEnd = Math.min(i, text.length);
      if (closed) i += 1;
      tokens.push({ kind: 'string', start, end: i, contentEnd, text: content });
      continue;
    }
    const start = i;
    while (i < text.length) {
      const c = text[i] ?? '';
      if (isSpace(c) || c === '"' || PUNCTUATION[c]) break;
      i += 1;
    }
    tokens.push({ kind: 'word', start, end: i, contentEnd: i, text: text.slice(start, i) });
  }
  return tokens;
}

/** What the scanner met: used both for the cursor's context and to find a path in the text. */
interface ScanVisitor {
  /** Before each token is handled (and once at the end, with `undefined`), with the frames open then. */
  before?(token: Token | undefined, stack: readonly Frame[], asKey: boolean): void;
  key?(path: readonly PathSegment[], start: number): void;
  element?(path: readonly PathSegment[], start: number): void;
  container?(path: readonly PathSegment[], open: number): void;
  /** A string, number or word value, with its path. */
  scalar?(path: readonly PathSegment[], token: Token): void;
}

/** Whether a token, met with these frames open, is read as an object's key. */
function readsAsKey(token: Token, top: Frame | undefined): boolean {
  // A string or word after a value with no comma between is read as the next key:
  // the comma is missing, and the validator says so.
  return top?.type === 'object' && (token.kind === 'string' || token.kind === 'word') && top.state !== 'value';
}

/** Walks the tokens, tracking open objects and arrays, their keys and array indexes. */
function scan(text: string, visitor: ScanVisitor): void {
  const stack: Frame[] = [];
  let rootDone = false;

  const valuePath = (): readonly PathSegment[] | undefined => {
    const top = stack[stack.length - 1];
    if (!top) return rootDone ? undefined : [];
    if (top.type === 'array') return [...top.path, top.index];
    return top.key === undefined ? undefined : [...top.path, top.key];
  };
  const valueDone = () => {
    const top = stack[stack.length - 1];
    if (!top) rootDone = true;
    else top.state = 'after';
  };
  const valueStarts = (start: number): readonly PathSegment[] => {
    const top = stack[stack.length - 1];
    const path = valuePath() ?? [...(top?.path ?? []), '?'];
    if (top?.type === 'array') visitor.element?.(path, start);
    return path;
  };
  const closeTo = (type: 'object' | 'array') => {
    const at = stack.map((frame) => frame.type).lastIndexOf(type);
    if (at < 0) return;
    stack.length = at;
    valueDone();
  };

  for (const token of tokenize(text)) {
    const top = stack[stack.length - 1];
    const asKey = readsAsKey(token, top);
    visitor.before?.(token, stack, asKey);
    switch (token.kind) {
      case 'open-object':
      case 'open-array': {
        const path = valueStarts(token.start);
        const frame: Frame = {
          type: token.kind === 'open-object' ? 'object' : 'array',
          path,
          open: token.start,
          state: token.kind === 'open-object' ? 'key' : 'value',
          key: undefined,
          index: 0,
          keys: [],
          strings: {},
        };
        visitor.container?.(path, token.start);
        stack.push(frame);
        break;
      }
      case 'close-object':
        closeTo('object');
        break;
      case 'close-array':
        closeTo('array');
        break;
      case 'colon':
        if (top?.type === 'object' && top.state === 'colon') top.state = 'value';
        break;
      case 'comma':
        if (top?.type === 'object') {
          top.state = 'key';
          top.key = undefined;
        } else if (top?.type === 'array') {
          if (top.state === 'after') top.index += 1;
          top.state = 'value';
        }
        break;
      case 'string':
      case 'word':
        if (top && asKey) {
          top.key = token.text;
          top.keys.push({ name: token.text, start: token.start });
          top.state = 'colon';
          visitor.key?.([...top.path, token.text], token.start);
        } else {
          visitor.scalar?.(valueStarts(token.start), token);
          if (top?.type === 'object' && top.key !== undefined && token.kind === 'string') top.strings[top.key] = token.text;
          valueDone();
        }
        break;
    }
  }
  visitor.before?.(undefined, stack, false);
}

// ---------------------------------------------------------------------------
// The cursor's context.

/** The cursor is where a field name goes: in which object, and what a completion replaces. */
export interface KeyContext {
  /** The path of the object the field belongs to (`[]` for the top level). */
  readonly path: readonly PathSegment[];
  /** The part of the name typed before the cursor, without its quote. */
  readonly prefix: string;
  /** The text a completion replaces, `[from, to)`: the partly typed key, its closing quote and colon if any. */
  readonly from: number;
  readonly to: number;
  /** The object's other keys, anywhere in it (before or after the cursor). */
  readonly present: readonly string[];
  /** The object's string-valued fields, such as its tag (`kind`, `op`, `dist`). */
  readonly values: Readonly<Record<string, string>>;
}

const NAME_CHAR = /[A-Za-z0-9_$\-.]/;

/** Where a completion of the key at `cursor` stops: the rest of the name, its closing quote, its colon. */
function replaceEnd(text: string, cursor: number, quoted: boolean): number {
  let end = cursor;
  while (end < text.length && NAME_CHAR.test(text[end] ?? '')) end += 1;
  if (quoted && text[end] === '"') end += 1;
  let after = end;
  while (text[after] === ' ' || text[after] === '\t') after += 1;
  if (text[after] !== ':') return end;
  after += 1;
  while (text[after] === ' ' || text[after] === '\t') after += 1;
  return after;
}

/**
 * Whether the cursor is at a key position of an object (after `{` or `,`, at the
 * start of a key, or inside a partly typed key, quoted or not), and which. Any
 * text, however incomplete or wrong; undefined when the cursor is elsewhere (inside
 * a string value, after a colon, in an array, outside every object).
 */
export function keyContextAt(text: string, cursor: number): KeyContext | undefined {
  let found: { frame: Frame; prefix: string; from: number; to: number; skip: number | undefined } | undefined;
  let decided = false;
  scan(text, {
    before(token, stack, asKey) {
      if (decided) return;
      const top = stack[stack.length - 1];
      if (token && asKey && top && token.start <= cursor && cursor <= token.contentEnd) {
        // At the start of, or inside, a key: the completion replaces it.
        decided = true;
        const quoted = token.kind === 'string';
        const prefixStart = quoted ? token.start + 1 : token.start;
        const prefix = cursor <= prefixStart ? '' : text.slice(prefixStart, cursor);
        const to = replaceEnd(text, Math.max(cursor, prefixStart), quoted);
        found = { frame: top, prefix, from: token.start, to, skip: token.start };
        return;
      }
      if (token && cursor > token.start) {
        // Inside (or right at the end of) a token that is not a key.
        if (cursor < token.end || (cursor === token.end && token.kind === 'word')) decided = true;
        return;
      }
      // Between tokens.
      decided = true;
      if (top?.type === 'object' && top.state === 'key') found = { frame: top, prefix: '', from: cursor, to: cursor, skip: undefined };
    },
  });
  if (!found) return undefined;
  const { frame, skip } = found;
  const present = frame.keys.filter((key) => key.start !== skip).map((key) => key.name);
  return { path: frame.path, prefix: found.prefix, from: found.from, to: found.to, present: [...new Set(present)], values: { ...frame.strings } };
}

/** The text with a field name completed at `context`, and where the cursor goes (after `"name": `). */
export function insertField(text: string, context: Pick<KeyContext, 'from' | 'to'>, name: string): { text: string; cursor: number } {
  const insertion = `${JSON.stringify(name)}: `;
  return { text: text.slice(0, context.from) + insertion + text.slice(context.to), cursor: context.from + insertion.length };
}

// ---------------------------------------------------------------------------
// Field names from the schema.

type Schema = Readonly<Record<string, unknown>>;

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A field the schema allows in an object. */
export interface FieldSuggestion {
  readonly name: string;
  /** Its description on one line (empty when the schema has none). */
  readonly description: string;
  /** Its type, short: `integer | null`, `object`, `"off" | "wakeups" | "all"`. */
  readonly type: string;
  /** Required in the object (in every form of it the tag allows). */
  readonly required: boolean;
  /** The field that says which form the object takes (`kind`, `op`, `dist`). */
  readonly tag: boolean;
}

/** One form an object may take: `$ref`, `allOf`, `oneOf`/`anyOf` resolved. */
interface Variant {
  readonly properties: Readonly<Record<string, unknown>>;
  readonly required: readonly string[];
  readonly items: unknown;
  readonly prefixItems: readonly unknown[];
}

const MAX_DEPTH = 32;

/** The schema a local `$ref` (`#/$defs/Name`) points to. */
function resolveRef(root: Schema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter((part) => part !== '')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node)) return undefined;
    node = node[part];
  }
  return node;
}

function merge(a: Variant, b: Variant): Variant {
  const properties: Record<string, unknown> = { ...a.properties };
  for (const [name, schema] of Object.entries(b.properties)) {
    properties[name] = name in properties ? { allOf: [properties[name], schema] } : schema;
  }
  return {
    properties,
    required: [...new Set([...a.required, ...b.required])],
    items: a.items ?? b.items,
    prefixItems: a.prefixItems.length > 0 ? a.prefixItems : b.prefixItems,
  };
}

/** Every pairing of the two lists' forms, merged (both apply). */
function product(a: readonly Variant[], b: readonly Variant[]): Variant[] {
  return a.flatMap((left) => b.map((right) => merge(left, right)));
}

/** The forms a schema node allows. */
function variantsOf(root: Schema, node: unknown, depth = 0): Variant[] {
  if (!isSchema(node) || depth > MAX_DEPTH) return [];
  let variants: Variant[] = [
    {
      properties: isSchema(node.properties) ? node.properties : {},
      required: Array.isArray(node.required) ? node.required.filter((name): name is string => typeof name === 'string') : [],
      items: node.items,
      prefixItems: Array.isArray(node.prefixItems) ? node.prefixItems : [],
    },
  ];
  if (typeof node.$ref === 'string') variants = product(variants, variantsOf(root, resolveRef(root, node.$ref), depth + 1));
  if (Array.isArray(node.allOf)) {
    for (const part of node.allOf) variants = product(variants, variantsOf(root, part, depth + 1));
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const alternatives = node[keyword];
    if (Array.isArray(alternatives)) variants = product(variants, alternatives.flatMap((alternative) => variantsOf(root, alternative, depth + 1)));
  }
  return variants;
}

/** The schema nodes at a path (several when forms differ). */
function nodesAt(root: Schema, path: readonly PathSegment[]): unknown[] {
  let nodes: unknown[] = [root];
  for (const segment of path) {
    const index = typeof segment === 'number' ? segment : /^\d+$/.test(segment) ? Number(segment) : undefined;
    nodes = nodes.flatMap((node) =>
      variantsOf(root, node).flatMap((variant) => {
        if (index !== undefined && (variant.items !== undefined || variant.prefixItems.length > 0)) {
          return [variant.prefixItems[index] ?? variant.items].filter((item) => item !== undefined);
        }
        const property = variant.properties[String(segment)];
        return property === undefined ? [] : [property];
      }),
    );
    if (nodes.length === 0) return [];
  }
  return nodes;
}

/** The values a schema fixes (`const`, `enum`), or undefined when it fixes none. */
function fixedValues(root: Schema, node: unknown, depth = 0): unknown[] | undefined {
  if (!isSchema(node) || depth > MAX_DEPTH) return undefined;
  if ('const' in node) return [node.const];
  if (Array.isArray(node.enum)) return node.enum;
  if (typeof node.$ref === 'string') return fixedValues(root, resolveRef(root, node.$ref), depth + 1);
  if (Array.isArray(node.allOf)) {
    for (const part of node.allOf) {
      const values = fixedValues(root, part, depth + 1);
      if (values) return values;
    }
  }
  return undefined;
}

function description(root: Schema, node: unknown, depth = 0): string {
  if (!isSchema(node) || depth > MAX_DEPTH) return '';
  if (typeof node.description === 'string') return node.description.replace(/\s*\n\s*/g, ' ').trim();
  if (typeof node.$ref === 'string') return description(root, resolveRef(root, node.$ref), depth + 1);
  if (Array.isArray(node.allOf)) {
    for (const part of node.allOf) {
      const found = description(root, part, depth + 1);
      if (found !== '') return found;
    }
  }
  return '';
}

function typeNames(root: Schema, node: unknown, depth = 0): string[] {
  if (!isSchema(node) || depth > MAX_DEPTH) return [];
  const fixed = 'const' in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (fixed) return fixed.map((value) => JSON.stringify(value));
  if (typeof node.$ref === 'string') return typeNames(root, resolveRef(root, node.$ref), depth + 1);
  const names: string[] = [];
  if (typeof node.type === 'string') names.push(node.type);
  if (Array.isArray(node.type)) names.push(...node.type.filter((name): name is string => typeof name === 'string'));
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const alternatives = node[keyword];
    if (Array.isArray(alternatives)) names.push(...alternatives.flatMap((alternative) => typeNames(root, alternative, depth + 1)));
  }
  if (names.length === 0 && Array.isArray(node.allOf)) {
    for (const part of node.allOf) names.push(...typeNames(root, part, depth + 1));
  }
  if (names.length === 0 && isSchema(node.properties)) names.push('object');
  return names;
}

/** A field's type as a short label; `null` last. */
function typeLabel(root: Schema, nodes: readonly unknown[]): string {
  const names = [...new Set(nodes.flatMap((node) => typeNames(root, node)))];
  const ordered = [...names.filter((name) => name !== 'null'), ...names.filter((name) => name === 'null')];
  return ordered.join(' | ');
}

const PREFERRED_TAGS = ['kind', 'op', 'dist', 'type'];

/** The field whose fixed value tells the forms apart, if the forms have one. */
function tagField(root: Schema, variants: readonly Variant[]): string | undefined {
  if (variants.length < 2) return undefined;
  const first = variants[0];
  if (!first) return undefined;
  const candidates = Object.keys(first.properties).filter((name) =>
    variants.every((variant) => fixedValues(root, variant.properties[name]) !== undefined),
  );
  return PREFERRED_TAGS.find((name) => candidates.includes(name)) ?? candidates[0];
}

/** What the text's object already holds: its keys and its string values (the tag among them). */
export interface PresentFields {
  readonly present?: readonly string[];
  readonly values?: Readonly<Record<string, string>>;
}

/**
 * The field names the schema allows in the object at `path` that it does not have
 * yet: the tag first (while absent), then the required fields, then the others in
 * the schema's order. Forms (`oneOf`/`anyOf`) are narrowed to the one the object's
 * tag names; with no tag yet, the union of them all. Empty for a path the schema
 * does not know, or that is not an object.
 */
export function fieldSuggestions(schema: unknown, path: readonly PathSegment[], fields: PresentFields = {}): FieldSuggestion[] {
  if (!isSchema(schema)) return [];
  const variants = nodesAt(schema, path)
    .flatMap((node) => variantsOf(schema, node))
    .filter((variant) => Object.keys(variant.properties).length > 0);
  if (variants.length === 0) return [];
  const tag = tagField(schema, variants);
  const tagValue = tag === undefined ? undefined : fields.values?.[tag];
  let chosen = variants;
  if (tag !== undefined && tagValue !== undefined) {
    const matching = variants.filter((variant) => (fixedValues(schema, variant.properties[tag]) ?? []).includes(tagValue));
    if (matching.length > 0) chosen = matching;
  }

  const order: string[] = [];
  const nodes = new Map<string, unknown[]>();
  for (const variant of chosen) {
    for (const [name, node] of Object.entries(variant.properties)) {
      if (!nodes.has(name)) {
        nodes.set(name, []);
        order.push(name);
      }
      nodes.get(name)?.push(node);
    }
  }
  const requiredEverywhere = (name: string) => chosen.every((variant) => variant.required.includes(name));
  const requiredOrder = (chosen[0]?.required ?? []).filter((name) => name !== tag && requiredEverywhere(name));
  const ranked = [
    ...(tag !== undefined ? [tag] : []),
    ...requiredOrder,
    ...order.filter((name) => name !== tag && !requiredOrder.includes(name)),
  ];
  const present = new Set(fields.present ?? []);
  return ranked
    .filter((name) => !present.has(name))
    .map((name) => {
      const found = nodes.get(name) ?? [];
      return {
        name,
        description: found.map((node) => description(schema, node)).find((text) => text !== '') ?? '',
        type: typeLabel(schema, found),
        required: requiredEverywhere(name),
        tag: name === tag,
      };
    });
}

/** Suggestions whose name starts with what was typed (ignoring case), in their order. */
export function matchingPrefix(suggestions: readonly FieldSuggestion[], prefix: string): FieldSuggestion[] {
  const wanted = prefix.toLowerCase();
  return suggestions.filter((suggestion) => suggestion.name.toLowerCase().startsWith(wanted));
}

/** The field names to offer at the cursor, or undefined when the cursor is not at a key position. */
export function suggestionsAt(schema: unknown, text: string, cursor: number): { context: KeyContext; suggestions: FieldSuggestion[] } | undefined {
  const context = keyContextAt(text, cursor);
  if (!context) return undefined;
  return { context, suggestions: matchingPrefix(fieldSuggestions(schema, context.path, context), context.prefix) };
}

// ---------------------------------------------------------------------------
// Where a problem is in the text.

/** A 1-based line and column as an offset into the text (clamped to it). */
export function offsetOfLineColumn(text: string, line: number, column: number): number {
  let offset = 0;
  for (let current = 1; current < line; current += 1) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  const lineEnd = text.indexOf('\n', offset);
  const end = lineEnd < 0 ? text.length : lineEnd;
  return Math.min(offset + Math.max(column - 1, 0), end);
}

class SyntaxAt {
  constructor(readonly offset: number) {}
}

/**
 * Where text stops being JSON (what `JSON.parse` rejects), or undefined when it is
 * JSON. For syntax errors whose message gives no position.
 */
export function syntaxErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxAt(Math.min(i, text.length));
  };
  const spaces = () => {
    while (i < text.length && isSpace(text[i] ?? '')) i += 1;
  };
  const expect = (char: string) => {
    if (text[i] !== char) fail();
    i += 1;
  };
  const string = () => {
    expect('"');
    for (;;) {
      const char = text[i];
      if (char === undefined || char < ' ') fail();
      i += 1;
      if (char === '"') return;
      if (char === '\\') {
        const escape = text[i] ?? '';
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 5;
        } else if ('"\\/bfnrt'.includes(escape) && escape !== '') {
          i += 1;
        } else {
          fail();
        }
      }
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === '-' || match[0] === '') fail();
    i += match?.[0].length ?? 0;
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail();
    spaces();
    const char = text[i];
    if (char === '{') {
      i += 1;
      spaces();
      if (text[i] === '}') {
        i += 1;
        return;
      }
      for (;;) {
        spaces();
        string();
        spaces();
        expect(':');
        value(depth + 1);
        spaces();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        expect('}');
        return;
      }
    }
    if (char === '[') {
      i += 1;
      spaces();
      if (text[i] === ']') {
        i += 1;
        return;
      }
      for (;;) {
        value(depth + 1);
        spaces();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        expect(']');
        return;
      }
    }
    if (char === '"') return string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    }
    fail();
  };
  try {
    value(0);
    spaces();
    if (i < text.length) fail();
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxAt) return error.offset;
    throw error;
  }
}

/** Where each key, array element and container of the text starts, by dotted path (first occurrence). */
function pathOffsets(text: string): { places: Map<string, number>; containers: Map<string, number> } {
  const places = new Map<string, number>();
  const containers = new Map<string, number>();
  const keep = (map: Map<string, number>, path: readonly PathSegment[], offset: number) => {
    const key = dottedPath(path);
    if (!map.has(key)) map.set(key, offset);
  };
  scan(text, {
    key: (path, start) => keep(places, path, start),
    element: (path, start) => keep(places, path, start),
    container: (path, open) => keep(containers, path, open),
  });
  return { places, containers };
}

/**
 * Where a problem is in the text, as an offset for the cursor: the key (or array
 * element) its path names; for a missing field, just inside its object; for a
 * syntax error, the line and column or position its message gives, else where the
 * text stops being JSON.
 */
export function problemOffset(text: string, problem: ScenarioProblem): number {
  if (problem.path === '') {
    const lineColumn = /line (\d+),? column (\d+)/.exec(problem.message);
    if (lineColumn) return offsetOfLineColumn(text, Number(lineColumn[1]), Number(lineColumn[2]));
    const position = /position (\d+)/.exec(problem.message);
    if (position) return Math.min(Number(position[1]), text.length);
    if (problem.message.startsWith('not valid JSON')) return syntaxErrorOffset(text) ?? 0;
    return 0;
  }
  const { places, containers } = pathOffsets(text);
  const exact = places.get(problem.path);
  if (exact !== undefined) return exact;
  const segments = problem.path.split('.');
  for (let length = segments.length - 1; length >= 0; length -= 1) {
    const open = containers.get(segments.slice(0, length).join('.'));
    if (open !== undefined) return open + 1;
  }
  return 0;
}

/**
 * The problem as the editor lists it: `path: message`, with the line and column
 * added to a syntax error whose message gives no position.
 */
export function describeAt(text: string, problem: ScenarioProblem, formatted: string): string {
  if (problem.path !== '' || !problem.message.startsWith('not valid JSON') || /line \d+|position \d+/.test(problem.message)) return formatted;
  const offset = syntaxErrorOffset(text);
  if (offset === undefined) return formatted;
  const { line, column } = lineColumnOf(text, offset);
  return `${formatted} (line ${line}, column ${column})`;
}

/** The text of the first string, number or word value at dotted `path` (a string's without its quotes), if any. */
export function writtenScalar(text: string, path: string): string | undefined {
  let written: string | undefined;
  scan(text, {
    scalar: (at, token) => {
      if (written === undefined && dottedPath(at) === path) written = token.text;
    },
  });
  return written;
}
