import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { formatProblem, parseScenarioText, scenarioSchema, scenarioTextProblems } from '../engine/validate';
import {
  describeAt,
  fieldSuggestions,
  insertField,
  keyContextAt,
  matchingPrefix,
  offsetOfLineColumn,
  problemOffset,
  suggestionsAt,
  syntaxErrorOffset,
} from './completion';
import { lineColumnOf } from '../base/text';

const TEACHING = readFileSync('../scenarios/teaching-small.json', 'utf8');

/** The text with `|` marking the cursor: the text without it, and the cursor's offset. */
function at(marked: string): [string, number] {
  const cursor = marked.indexOf('|');
  if (cursor < 0) throw new Error('no cursor mark');
  return [marked.slice(0, cursor) + marked.slice(cursor + 1), cursor];
}

function contextOf(marked: string) {
  return keyContextAt(...at(marked));
}

function names(path: readonly (string | number)[], fields = {}): string[] {
  return fieldSuggestions(scenarioSchema, path, fields).map((suggestion) => suggestion.name);
}

describe('the cursor at a key position', () => {
  it('after an opening brace or a comma, at the top level and inside objects', () => {
    expect(contextOf('{|')).toMatchObject({ path: [], prefix: '', from: 1, to: 1 });
    expect(contextOf('{ "seed": 1,\n  |\n}')).toMatchObject({ path: [], prefix: '', present: ['seed'] });
    expect(contextOf('{ "topology": { | "preset": "x" }, "seed": 1 }')).toMatchObject({ path: ['topology'], present: ['preset'] });
  });

  it('inside a partly typed key, quoted or not, with what a completion replaces', () => {
    const [text, cursor] = at('{ "seed": 1, "wor|\n}');
    const context = keyContextAt(text, cursor);
    expect(context).toMatchObject({ path: [], prefix: 'wor', present: ['seed'] });
    expect(context && text.slice(context.from, context.to)).toBe('"wor');
    expect(contextOf('{ "seed": 1, wo|')).toMatchObject({ path: [], prefix: 'wo' });
    // Inside a complete key: the whole key, its colon and the space after it are replaced.
    const [keyed, inside] = at('{ "se|ed": 1 }');
    const renamed = keyContextAt(keyed, inside);
    expect(renamed).toMatchObject({ prefix: 'se', present: [] });
    expect(renamed && keyed.slice(renamed.from, renamed.to)).toBe('"seed": ');
  });

  it('at the start of a key', () => {
    expect(contextOf('{ "a": 1, |"seed": 2 }')).toMatchObject({ path: [], prefix: '', present: ['a'] });
  });

  it('tracks array indexes, nested objects and the object keys after the cursor', () => {
    const context = contextOf('{"workloads": [ {"kind": "hackbench"}, {"kind": "schbench", |\n "nice": 0, "cpus": "0-3"} ]}');
    expect(context).toMatchObject({ path: ['workloads', 1], present: ['kind', 'nice', 'cpus'], values: { kind: 'schbench', cpus: '0-3' } });
  });

  it('ignores braces, brackets, quotes and commas inside strings and escapes', () => {
    const context = contextOf('{"title": "a {b} [c], \\"d: {", "x": { "y": "}", |');
    expect(context).toMatchObject({ path: ['x'], present: ['y'] });
  });

  it('is not a key position inside a string value, after a colon, inside a number or in an array', () => {
    expect(contextOf('{ "title": "Teach|ing" }')).toBeUndefined();
    expect(contextOf('{ "title": | }')).toBeUndefined();
    expect(contextOf('{ "seed": 4|2 }')).toBeUndefined();
    expect(contextOf('{ "seed": 42| }')).toBeUndefined();
    expect(contextOf('{ "workloads": [ | ] }')).toBeUndefined();
    expect(contextOf('|{}')).toBeUndefined();
    expect(keyContextAt('', 0)).toBeUndefined();
  });

  it('tolerates text that is not JSON yet: a half-typed string ends at the end of its line', () => {
    expect(contextOf('{ "title": "never closed\n  |')).toBeUndefined(); // after a value, no comma
    expect(contextOf('{ "title": "never closed,\n  "|')).toMatchObject({ path: [], prefix: '' });
    expect(contextOf('{ "topology": { "preset": "x", ]] |')).toMatchObject({ path: ['topology'] });
  });
});

describe('field names from the schema', () => {
  it('offers the top level fields that are not there yet, with descriptions and types', () => {
    const all = fieldSuggestions(scenarioSchema, []);
    expect(all.map((field) => field.name)).toEqual(
      expect.arrayContaining(['title', 'duration_ms', 'topology', 'workloads', 'seed', 'policy', 'knobs', 'kernel']),
    );
    // Required first.
    expect(all.slice(0, 4).map((field) => field.name).sort()).toEqual(['duration_ms', 'title', 'topology', 'workloads']);
    expect(all.find((field) => field.name === 'seed')).toMatchObject({
      type: 'integer',
      required: false,
      description: 'Seed of the run\'s random generator: same seed, same trace.',
    });
    expect(all.find((field) => field.name === 'policy')).toMatchObject({ type: 'object', description: 'Switches for the scheduler\'s paths.' });
    expect(all.find((field) => field.name === 'kernel')?.type).toBe('string | null');
    expect(names([], { present: ['title', 'seed'] })).not.toContain('seed');
  });

  it('offers the topology fields', () => {
    const topology = fieldSuggestions(scenarioSchema, ['topology'], { present: ['preset'] });
    expect(topology.map((field) => field.name)).toEqual(
      expect.arrayContaining(['sockets', 'llcs_per_socket', 'cores_per_llc', 'threads_per_core', 'numbering', 'cpu_ids']),
    );
    expect(topology.map((field) => field.name)).not.toContain('preset');
    expect(topology.find((field) => field.name === 'numbering')?.type).toBe('"adjacent" | "split" | "explicit" | null');
  });

  it('narrows a workload to the form its kind names, required fields first', () => {
    const schbench = fieldSuggestions(scenarioSchema, ['workloads', 0], { present: ['kind'], values: { kind: 'schbench' } });
    expect(schbench.map((field) => field.name)).toEqual([
      'message_threads',
      'worker_threads',
      'cputime_us',
      'sleeptime_us',
      'cpus',
      'footprint_kib',
      'nice',
      'pipe_bytes',
    ]);
    expect(schbench[0]).toMatchObject({ required: true, description: '`-m`: message threads.', type: 'integer' });
    expect(names(['workloads', '0'], { present: ['kind', 'groups'], values: { kind: 'hackbench' } })).toEqual([
      'loops',
      'buffer_messages',
      'fds',
      'footprint_kib',
      'read_us',
      'write_us',
    ]);
  });

  it('offers the union of a workload\'s forms, the tag first, when there is no kind yet', () => {
    const union = fieldSuggestions(scenarioSchema, ['workloads', 0]);
    expect(union[0]).toMatchObject({ name: 'kind', tag: true, required: true });
    expect(union[0]?.type).toContain('"schbench"');
    expect(union[0]?.type).toContain('"hackbench"');
    const all = union.map((field) => field.name);
    expect(all).toEqual(expect.arrayContaining(['message_threads', 'groups', 'pairs', 'clients', 'jobs', 'threads', 'tasks']));
    expect(new Set(all).size).toBe(all.length);
    // An unknown kind: still the union, to help fix it.
    expect(names(['workloads', 0], { values: { kind: 'schbenc' } })).toContain('message_threads');
  });

  it('resolves $ref through nested objects: policy.shared_runq, ops and distributions', () => {
    const shared = fieldSuggestions(scenarioSchema, ['policy', 'shared_runq']);
    expect(shared.map((field) => field.name)).toEqual(['mode', 'shard_index', 'shard_size', 'skip_llc_balance']);
    expect(shared[0]).toMatchObject({ type: '"off" | "wakeups" | "all"', description: '`off`, `wakeups` or `all` (default `off`).' });
    const op = ['workloads', 0, 'tasks', 0, 'program', 2];
    expect(names(op, { present: ['op'], values: { op: 'post' } })).toEqual(['channel', 'count', 'sync']);
    expect(names([...op, 'duration'], { present: ['dist'], values: { dist: 'uniform' } })).toEqual(['min_us', 'max_us']);
  });

  it('resolves allOf and anyOf', () => {
    const schema = {
      $defs: { Base: { type: 'object', properties: { a: { type: 'integer', description: 'A.' } }, required: ['a'] } },
      type: 'object',
      properties: {
        both: { allOf: [{ $ref: '#/$defs/Base' }, { properties: { b: { type: 'boolean' } } }] },
        either: { anyOf: [{ properties: { t: { enum: ['x'] }, x: {} } }, { properties: { t: { enum: ['y'] }, y: {} } }, { type: 'null' }] },
      },
    };
    expect(fieldSuggestions(schema, ['both'])).toEqual([
      { name: 'a', description: 'A.', type: 'integer', required: true, tag: false },
      { name: 'b', description: '', type: 'boolean', required: false, tag: false },
    ]);
    expect(fieldSuggestions(schema, ['either']).map((field) => field.name)).toEqual(['t', 'x', 'y']);
    expect(fieldSuggestions(schema, ['either'], { values: { t: 'y' } }).map((field) => field.name)).toEqual(['t', 'y']);
  });

  it('offers nothing, and does not throw, for an unknown path or a non-object', () => {
    expect(fieldSuggestions(scenarioSchema, ['nonsense'])).toEqual([]);
    expect(fieldSuggestions(scenarioSchema, ['topology', 'preset', 'deeper', 3])).toEqual([]);
    expect(fieldSuggestions(scenarioSchema, ['seed'])).toEqual([]);
    expect(fieldSuggestions(undefined, [])).toEqual([]);
    expect(fieldSuggestions({ $ref: '#/nowhere' }, [])).toEqual([]);
    const loop = { $defs: { A: { $ref: '#/$defs/A' } }, $ref: '#/$defs/A' };
    expect(fieldSuggestions(loop, [])).toEqual([]);
  });

  it('filters by the typed prefix, ignoring case', () => {
    const topology = fieldSuggestions(scenarioSchema, ['topology']);
    expect(matchingPrefix(topology, 'C').map((field) => field.name)).toEqual(['cores_per_llc', 'cpu_ids']);
    expect(matchingPrefix(topology, 'zz')).toEqual([]);
  });
});

describe('completing in the real scenario text', () => {
  it('offers the topology fields inside `"topology": {` and inserts one, keeping the rest', () => {
    const cursor = TEACHING.indexOf('"topology": {') + '"topology": {'.length;
    const found = suggestionsAt(scenarioSchema, TEACHING, cursor);
    expect(found?.context.path).toEqual(['topology']);
    expect(found?.suggestions.map((field) => field.name)).toContain('sockets');
    expect(found?.suggestions.map((field) => field.name)).not.toContain('preset');
    if (!found) return;
    const done = insertField(TEACHING, found.context, 'sockets');
    expect(done.text).toBe(TEACHING.slice(0, cursor) + '"sockets": ' + TEACHING.slice(cursor));
    expect(done.text.slice(done.cursor - '"sockets": '.length, done.cursor)).toBe('"sockets": ');
  });

  it('replaces a partly typed key in a workload, narrowed by its kind', () => {
    const typed = TEACHING.replace('"sleeptime_us": 3000', '"sleeptime_us": 3000,\n      "fo');
    const cursor = typed.indexOf('"fo') + 3;
    const found = suggestionsAt(scenarioSchema, typed, cursor);
    expect(found?.context).toMatchObject({ path: ['workloads', 0], prefix: 'fo', values: { kind: 'schbench' } });
    expect(found?.suggestions.map((field) => field.name)).toEqual(['footprint_kib']);
    if (!found) return;
    const done = insertField(typed, found.context, 'footprint_kib');
    expect(done.text).toBe(TEACHING.replace('"sleeptime_us": 3000', '"sleeptime_us": 3000,\n      "footprint_kib": '));
  });

  it('offers nothing with the cursor inside a string value', () => {
    const cursor = TEACHING.indexOf('teaching-small"') + 3;
    expect(suggestionsAt(scenarioSchema, TEACHING, cursor)).toBeUndefined();
  });

  it('at the top level, offers what the file lacks', () => {
    const cursor = TEACHING.indexOf('"seed"');
    const found = suggestionsAt(scenarioSchema, TEACHING, cursor);
    expect(found?.context.path).toEqual([]);
    const offered = found?.suggestions.map((field) => field.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['seed', 'policy', 'knobs', 'kernel']));
    expect(offered).not.toContain('title');
  });
});

describe('where a problem is in the text', () => {
  it('finds the key a schema problem names', () => {
    const text = TEACHING.replace('"preset": "teaching-small"', '"preset": "teaching-small", "llcs_per_socket": 0');
    const [problem] = scenarioTextProblems(text);
    expect(problem && formatProblem(problem)).toBe('topology.llcs_per_socket: must be at least 1, got 0');
    if (!problem) return;
    expect(problemOffset(text, problem)).toBe(text.indexOf('"llcs_per_socket"'));
    expect(problemOffset(text, { path: 'workloads.0.sleeptime_us', message: '' })).toBe(text.indexOf('"sleeptime_us"'));
    expect(problemOffset(text, { path: 'workloads.0', message: '' })).toBe(text.indexOf('{', text.indexOf('"workloads"')));
  });

  it('puts a missing field just inside its object', () => {
    const text = TEACHING.replace(',\n      "sleeptime_us": 3000', '');
    const problems = scenarioTextProblems(text).map(formatProblem);
    expect(problems).toEqual(['workloads.0.sleeptime_us: is required']);
    const open = text.indexOf('{', text.indexOf('"workloads"'));
    expect(problemOffset(text, { path: 'workloads.0.sleeptime_us', message: 'is required' })).toBe(open + 1);
  });

  it('uses the position a syntax error gives, or finds it', () => {
    const text = '{\n  "title": "t",\n}';
    const parsed = parseScenarioText(text);
    expect('problems' in parsed).toBe(true);
    if (!('problems' in parsed)) return;
    const problem = parsed.problems[0];
    if (!problem) return;
    expect(problemOffset(text, problem)).toBe(text.indexOf('}'));
    expect(problemOffset(text, { path: '', message: 'not valid JSON: nope (line 2, column 3)' })).toBe(4);
    expect(problemOffset(text, { path: '', message: 'not valid JSON: Unexpected token' })).toBe(text.indexOf('}'));
  });

  it('finds where text stops being JSON', () => {
    expect(syntaxErrorOffset(TEACHING)).toBeUndefined();
    expect(syntaxErrorOffset('{ "title": "t", oops }')).toBe(16);
    expect(syntaxErrorOffset('{"a": [1, 2,]}')).toBe(12);
    expect(syntaxErrorOffset('{"a": 1')).toBe(7);
    expect(syntaxErrorOffset('{"a": "x\ny"}')).toBe(8);
    expect(syntaxErrorOffset('[1e5, -0.5, true, null, "\\u00e9"] x')).toBe(34);
    for (const bad of ['', '{', '{"a" 1}', '[01]', '{"a": tru}', '"\\x"']) {
      expect(() => JSON.parse(bad), bad).toThrow();
      expect(syntaxErrorOffset(bad), bad).toBeDefined();
    }
  });

  it('adds the line and column to a syntax error whose message has none', () => {
    const text = '{\n  "title": "t", oops\n}';
    const problem = { path: '', message: 'not valid JSON: Unexpected token \'o\'' };
    expect(describeAt(text, problem, formatProblem(problem))).toBe('not valid JSON: Unexpected token \'o\' (line 2, column 17)');
    const placed = { path: '', message: 'not valid JSON: bad at position 3 (line 1, column 4)' };
    expect(describeAt(text, placed, formatProblem(placed))).toBe(formatProblem(placed));
    expect(lineColumnOf(text, offsetOfLineColumn(text, 2, 17))).toEqual({ line: 2, column: 17 });
  });

  it('quotes a number as written where JSON.parse rounded it or made it Infinity', () => {
    const at = (field: string, written: string) => {
      const text = TEACHING.replace(/"duration_ms": [^,\n]+/, `"duration_ms": ${field === 'duration_ms' ? written : '100'}`).replace(/"seed": [^,\n]+/, `"seed": ${field === 'seed' ? written : '1'}`);
      const problem = scenarioTextProblems(text).find((found) => found.path === field);
      if (!problem) throw new Error(`no problem at ${field} for ${written}`);
      return describeAt(text, problem, formatProblem(problem));
    };
    // JSON.parse reads these as 18446744073709552000 and Infinity (shown as null).
    expect(at('seed', '18446744073709551616')).toMatch(/, got 18446744073709551616$/);
    expect(at('duration_ms', '1e400')).toMatch(/, got 1e400$/);
    expect(at('duration_ms', '-5')).toMatch(/^duration_ms: must be at least \d+, got -5$/);
    // A message that does not quote the number is left as it is.
    const text = TEACHING.replace(/"seed": [^,\n]+/, '"seed": "one"');
    const problem = scenarioTextProblems(text).find((found) => found.path === 'seed');
    expect(problem && describeAt(text, problem, formatProblem(problem))).toBe(problem && formatProblem(problem));
  });
});
