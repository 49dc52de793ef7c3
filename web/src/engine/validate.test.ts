import { describe, expect, it } from 'vitest';
import { fieldBelongs, formatProblem, parseScenarioText, schemaProblems } from './validate';
import { bundledScenarios } from './scenarios';
import { readFileSync, readdirSync } from 'node:fs';

const GOOD = {
  title: 't',
  duration_ms: 10,
  topology: { preset: 'teaching-small' },
  workloads: [{ kind: 'schbench', message_threads: 1, worker_threads: 2, cputime_us: 100, sleeptime_us: 100 }],
};

function problemsOf(value: unknown): string[] {
  return schemaProblems(value).map(formatProblem);
}

describe('scenario schema validation in the browser', () => {
  it('accepts every shipped scenario', () => {
    const files = readdirSync('../scenarios').filter((name) => name.endsWith('.json') && !name.endsWith('.schema.json'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const name of files) {
      const value = JSON.parse(readFileSync(`../scenarios/${name}`, 'utf8')) as unknown;
      expect(problemsOf(value), name).toEqual([]);
    }
  });

  it('bundles the shipped scenarios with the default first', () => {
    expect(bundledScenarios[0]?.id).toBe('teaching-small');
    expect(bundledScenarios.map((scenario) => scenario.id)).toContain('sis-schbench-t19');
  });

  it('names the field and the limit, as the CLI does', () => {
    const value = { ...GOOD, topology: { preset: 'teaching-small', llcs_per_socket: 0 } };
    expect(problemsOf(value)).toEqual(['topology.llcs_per_socket: must be at least 1, got 0']);
  });

  it('narrows tagged alternatives to the one whose kind matched', () => {
    const value = { ...GOOD, workloads: [{ ...GOOD.workloads[0], worker_threads: undefined, workers: 2 }] };
    const found = problemsOf(JSON.parse(JSON.stringify(value)));
    expect(found).toContain('workloads.0.workers: is not a known field');
    expect(found).toContain('workloads.0.worker_threads: is required');
    expect(found.every((line) => !line.includes('oneOf'))).toBe(true);
  });

  it('lists the valid kinds for an unknown kind', () => {
    const value = { ...GOOD, workloads: [{ ...GOOD.workloads[0], kind: 'schbench2' }] };
    const found = problemsOf(value);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^workloads\.0\.kind: must be one of "schbench", "hackbench", .*"tasks", got "schbench2"$/);
  });

  it('lists the choices of a documented string enum, as the CLI does', () => {
    const value = { ...GOOD, policy: { shared_runq: { mode: 'sometimes' } } };
    expect(problemsOf(value)).toEqual(['policy.shared_runq.mode: must be one of "off", "wakeups", "all", got "sometimes"']);
  });

  it('reports wrong types', () => {
    expect(problemsOf({ ...GOOD, duration_ms: 'ten' })).toEqual(['duration_ms: must be an integer, got a string']);
  });

  it('says where a JSON syntax error is', () => {
    const result = parseScenarioText('{\n  "title": "t",\n  oops\n}');
    expect('problems' in result).toBe(true);
    if ('problems' in result) {
      expect(result.problems[0]?.message).toMatch(/^not valid JSON: .*line 3/);
    }
  });
});

describe('a syntax error', () => {
  it('says the line and column, not the character position, and points at a missing comma', () => {
    const text = '{\n  "title": "t",\n  "seed": 42\n  "duration_ms": 10\n}';
    const parsed = parseScenarioText(text);
    expect('problems' in parsed).toBe(true);
    if (!('problems' in parsed)) return;
    const message = parsed.problems[0]?.message ?? '';
    expect(message).toMatch(/^not valid JSON: Expected ',' or '}' after property value, at line 4, column 3 \(a comma missing at the end of the line before\?\)$/);
    expect(message).not.toContain('position');
  });

  it('says where a token the browser names no position for is, and what is wrong with it', () => {
    const messageOf = (text: string) => {
      const parsed = parseScenarioText(text);
      return 'problems' in parsed ? parsed.problems[0]?.message : undefined;
    };
    const text = (seed: string) => `{\n  "title": "t",\n  "seed": ${seed},\n  "duration_ms": 10\n}\n`;
    expect(messageOf(text('NaN'))).toBe(
      'not valid JSON: `NaN` is not a JSON value (its words are true, false and null, and text goes in double quotes), at line 3, column 11',
    );
    expect(messageOf(text('tru'))).toMatch(/^not valid JSON: `tru` is not a JSON value .*, at line 3, column 11$/);
    expect(messageOf(text('.5'))).toBe('not valid JSON: unexpected `.` here, at line 3, column 11');
    expect(messageOf(`// a comment\n${text('1')}`)).toBe('not valid JSON: a comment, which JSON does not allow, at line 1, column 1');
    expect(messageOf(`\ufeff${text('1')}`)).toBe('not valid JSON: a byte-order mark (U+FEFF), which JSON does not allow, at line 1, column 1');
  });

  it('says that an empty text is empty, and where a text that ends too soon ends', () => {
    const messageOf = (text: string) => {
      const parsed = parseScenarioText(text);
      return 'problems' in parsed ? parsed.problems[0]?.message : undefined;
    };
    expect(messageOf('')).toBe('not valid JSON: the text is empty; a scenario is a JSON object, such as one of the shipped scenarios');
    expect(messageOf('  \n ')).toMatch(/the text is empty/);
    // A "{" inside a string is no bracket.
    expect(messageOf('{\n  "title": "a {",\n  "workloads": [{ "kind":\n')).toBe(
      'not valid JSON: the text ends before its JSON does, at line 3, column 26 (3 brackets left open?)',
    );
  });
});

describe('an unknown field', () => {
  it('is named with the field it most likely meant', () => {
    const problems = schemaProblems({ title: 't', duration_ms: 10, kernal: '6.5', topology: { preset: 'teaching-small', socktes: 1 }, workloads: [] });
    expect(problems.map(formatProblem)).toEqual(expect.arrayContaining(['kernal: is not a known field (did you mean "kernel"?)', 'topology.socktes: is not a known field (did you mean "sockets"?)']));
    expect(schemaProblems({ title: 't', duration_ms: 10, zzzzzz: 1, topology: { preset: 'teaching-small' }, workloads: [] }).map(formatProblem)).toContain('zzzzzz: is not a known field');
    // Among the fields of the object it is in, as the CLI looks (crates/sched-scenario/tests/scenarios.rs).
    const nested = schemaProblems({ title: 't', duration_ms: 10, topology: { preset: 'teaching-small', sockts: 3 }, workloads: [] }).map(formatProblem);
    expect(nested).toContain('topology.sockts: is not a known field (did you mean "sockets"?)');
  });

  it('put in the wrong object, is told where it belongs, in the CLI\'s words', () => {
    const schbench = { kind: 'schbench', message_threads: 1, worker_threads: 2, cputime_us: 100, sleeptime_us: 100 };
    const base = { title: 't', duration_ms: 10, topology: { preset: 'teaching-small' }, workloads: [schbench] };
    const problems = (value: object) => schemaProblems(value).map(formatProblem);
    expect(problems({ ...base, topology: { preset: 'teaching-small', seed: 3 } })).toContain('topology.seed: is not a known field ("seed" belongs at the top level)');
    expect(problems({ ...base, policy: { shard_size: 3 } })).toContain('policy.shard_size: is not a known field ("shard_size" belongs in policy.shared_runq)');
    expect(problems({ ...base, workloads: [schbench, { ...schbench, kernel: '6.5' }] })).toContain('workloads.1.kernel: is not a known field ("kernel" belongs at the top level)');
    // A field of another workload kind, in its own place, is not sent elsewhere.
    const otherKind = problems({ ...base, workloads: [{ ...schbench, buffer_messages: 8 }] });
    expect(otherKind.some((line) => line.startsWith('workloads.0.buffer_messages: is not a known field') && !line.includes('belongs'))).toBe(true);
    expect(fieldBelongs('zzzz', 'topology')).toBeUndefined();
    // A cgroup tree's field put in its leaf: one level up, with the workload's own index.
    expect(fieldBelongs('depth', 'workloads.3.leaf')).toBe('in workloads.3');
  });
});
