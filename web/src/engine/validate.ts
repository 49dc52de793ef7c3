/**
 * Scenario validation against the committed JSON Schema (generated from the Rust
 * types), with messages in the same `path: message` form as the CLI's.
 */
import type { ErrorObject } from 'ajv/dist/2020';
// Generated from the schema at build time (web/vite.config.ts): no schema compiled at run time.
import validateScenario from 'virtual:scenario-validator';
import schema from '../../../scenarios/scenario.schema.json';
import type { ScenarioProblem } from './protocol';

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

function describe(error: ErrorObject, root: unknown): ScenarioProblem[] {
  const path = dotted(error.instancePath);
  const value = valueAt(root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'minimum':
      return [{ path, message: `must be at least ${String(params.limit)}, got ${show(value)}` }];
    case 'maximum':
      return [{ path, message: `must be at most ${String(params.limit)}, got ${show(value)}` }];
    case 'minLength':
      return [{ path, message: `must be at least ${String(params.limit)} characters long, got ${show(value)}` }];
    case 'maxLength':
      return [{ path, message: `must be at most ${String(params.limit)} characters long, got ${show(value)}` }];
    case 'minItems':
      return [{ path, message: `must have at least ${String(params.limit)} entries` }];
    case 'required':
      return [{ path: join(path, String(params.missingProperty)), message: 'is required' }];
    case 'additionalProperties':
      return [{ path: join(path, String(params.additionalProperty)), message: 'is not a known field' }];
    case 'type': {
      const expected = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
      return [{ path, message: `must be ${article(expected)}, got ${typeName(value)}` }];
    }
    case 'enum':
      return [
        {
          path,
          message: `must be one of ${(params.allowedValues as unknown[]).map(show).join(', ')}, got ${show(value)}`,
        },
      ];
    case 'const':
      return [{ path, message: `must be ${show(params.allowedValue)}, got ${show(value)}` }];
    case 'x-tags': {
      const tags = params.tags as string[];
      if (tags.length === 0) return [{ path, message: 'does not match any of the allowed forms' }];
      return [{ path, message: `must be one of ${tags.join(', ')}, got ${show(value)}` }];
    }
    default:
      return [{ path, message: error.message ?? 'is not valid' }];
  }
}

/** Parses scenario text; on failure, says where. */
export function parseScenarioText(text: string): { value: unknown } | { problems: ScenarioProblem[] } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problems: [{ path: '', message: `not valid JSON: ${message}${lineHint(text, message)}` }] };
  }
}

/** Adds a line and column when the engine's message only gives a character position. */
function lineHint(text: string, message: string): string {
  const match = /position (\d+)/.exec(message);
  if (!match || /line \d+/.test(message)) return '';
  const position = Number(match[1]);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return ` (line ${line}, column ${column})`;
}

/** Schema problems of a parsed scenario, deduplicated, in document order. */
export function schemaProblems(value: unknown): ScenarioProblem[] {
  if (validateScenario(value)) return [];
  const problems = narrow(validateScenario.errors ?? []).flatMap((error) => describe(error, value));
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
  return 'problems' in parsed ? parsed.problems : schemaProblems(parsed.value);
}

export function formatProblem(problem: ScenarioProblem): string {
  return problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`;
}
