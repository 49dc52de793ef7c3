import { describe, expect, it } from 'vitest';
import type { CacheMisses, LayoutField, OperationFields, StructLayout } from '../engine/protocol';
import {
  changePct,
  dropField,
  explicitLayout,
  fieldHeat,
  fieldLines,
  formatChangePct,
  layoutChoice,
  layoutSpecText,
  linesTouched,
  missRows,
  missTotals,
  moveField,
  moveFieldBy,
  nextMissSort,
  orderText,
  parseOrderText,
  sortMissRows,
  touchedFields,
} from './structLayout';

const op = (operation: string, se: { read?: string[]; write?: string[] }, rq: { read?: string[]; write?: string[] }): OperationFields => ({
  operation,
  sched_entity: { read: se.read ?? [], write: se.write ?? [] },
  cfs_rq: { read: rq.read ?? [], write: rq.write ?? [] },
});

const OPERATIONS: readonly OperationFields[] = [
  op('enqueue_entity', { read: ['vruntime', 'load'], write: ['vruntime', 'on_rq'] }, { read: ['load', 'curr'], write: ['load'] }),
  op('entity_tick', { read: ['vruntime', 'exec_start'] }, { read: ['curr'] }),
  op('tg_throttle_down', {}, { read: ['throttle_count'], write: ['throttle_count'] }),
];

describe('field heat', () => {
  it('adds, per field, the calls of every operation that reads or writes it, once per operation', () => {
    const heat = fieldHeat(OPERATIONS, [
      { operation: 'enqueue_entity', calls: 100, sched_entity: 7, cfs_rq: 3 },
      { operation: 'entity_tick', calls: 40, sched_entity: 1, cfs_rq: 1 },
      { operation: 'tg_throttle_down', calls: 5, sched_entity: 0, cfs_rq: 2 },
    ]);
    // vruntime is read and written by enqueue_entity: its calls count once.
    expect(heat.sched_entity.get('vruntime')).toBe(140);
    expect(heat.sched_entity.get('load')).toBe(100);
    expect(heat.sched_entity.get('on_rq')).toBe(100);
    expect(heat.sched_entity.get('exec_start')).toBe(40);
    expect(heat.cfs_rq.get('curr')).toBe(140);
    expect(heat.cfs_rq.get('load')).toBe(100);
    expect(heat.cfs_rq.get('throttle_count')).toBe(5);
    // The structures are apart: sched_entity's load is not cfs_rq's.
    expect(heat.sched_entity.has('curr')).toBe(false);
  });

  it('is 0 for fields of operations not called yet, and ignores operations it does not know', () => {
    const heat = fieldHeat(OPERATIONS, [{ operation: 'entity_tick', calls: 3, sched_entity: 0, cfs_rq: 0 }, { operation: 'unknown_op', calls: 1000, sched_entity: 1, cfs_rq: 1 }]);
    expect(heat.sched_entity.get('on_rq')).toBe(0);
    expect(heat.sched_entity.get('vruntime')).toBe(3);
    expect(heat.cfs_rq.get('throttle_count')).toBe(0);
    expect(fieldHeat(OPERATIONS, []).cfs_rq.get('curr')).toBe(0);
  });

  it('sums the calls of an operation listed twice in the detail', () => {
    const heat = fieldHeat(OPERATIONS, [
      { operation: 'entity_tick', calls: 3, sched_entity: 0, cfs_rq: 0 },
      { operation: 'entity_tick', calls: 4, sched_entity: 0, cfs_rq: 0 },
    ]);
    expect(heat.sched_entity.get('exec_start')).toBe(7);
  });
});

describe('lines an operation touches', () => {
  const field = (name: string, offset: number, size: number): LayoutField => ({ name, offset, size });
  const layout: StructLayout = {
    name: 'sched_entity',
    size: 192,
    lines: 3,
    fields: [field('load', 0, 16), field('straddler', 56, 16), field('vruntime', 72, 8), field('avg', 128, 64)],
  };

  it('counts a field across a line boundary on both lines', () => {
    expect(fieldLines(field('straddler', 56, 16))).toEqual([0, 1]);
    expect(fieldLines(field('avg', 128, 64))).toEqual([2]);
    expect(fieldLines(field('flag', 63, 1))).toEqual([0]);
  });

  it('gives the distinct lines holding the fields, in order', () => {
    expect(linesTouched(layout, new Set(['avg', 'load']))).toEqual([0, 2]);
    expect(linesTouched(layout, new Set(['straddler', 'vruntime']))).toEqual([0, 1]);
    expect(linesTouched(layout, new Set(['nowhere']))).toEqual([]);
    expect(linesTouched(layout, touchedFields(OPERATIONS[0] as OperationFields, 'sched_entity'))).toEqual([0, 1]);
  });
});

describe('editing a field order', () => {
  const order = ['a', 'b', 'c', 'd'] as const;

  it('moves a field to a position, clamped to the ends', () => {
    expect(moveField(order, 'a', 2)).toEqual(['b', 'c', 'a', 'd']);
    expect(moveField(order, 'd', 0)).toEqual(['d', 'a', 'b', 'c']);
    expect(moveField(order, 'b', 99)).toEqual(['a', 'c', 'd', 'b']);
    expect(moveField(order, 'c', -5)).toEqual(['c', 'a', 'b', 'd']);
  });

  it('answers the same array when nothing moves, so no re-run is made', () => {
    expect(moveField(order, 'b', 1)).toBe(order);
    expect(moveField(order, 'zz', 0)).toBe(order);
    expect(moveFieldBy(order, 'a', -1)).toBe(order);
    expect(moveFieldBy(order, 'd', 1)).toBe(order);
  });

  it('moves a field one place at a time (the keyboard way)', () => {
    expect(moveFieldBy(order, 'c', -1)).toEqual(['a', 'c', 'b', 'd']);
    expect(moveFieldBy(order, 'a', 1)).toEqual(['b', 'a', 'c', 'd']);
    expect(moveFieldBy(order, 'b', 2)).toEqual(['a', 'c', 'd', 'b']);
  });

  it('drops a dragged field before or after its target', () => {
    expect(dropField(order, 'd', 'b', 'before')).toEqual(['a', 'd', 'b', 'c']);
    expect(dropField(order, 'a', 'c', 'after')).toEqual(['b', 'c', 'a', 'd']);
    expect(dropField(order, 'a', 'c', 'before')).toEqual(['b', 'a', 'c', 'd']);
    expect(dropField(order, 'c', 'a', 'before')).toEqual(['c', 'a', 'b', 'd']);
    expect(dropField(order, 'b', 'd', 'after')).toEqual(['a', 'c', 'd', 'b']);
  });

  it('leaves the order as it is for a drop onto itself, onto its own place, or of an unknown field', () => {
    expect(dropField(order, 'b', 'b', 'after')).toBe(order);
    expect(dropField(order, 'b', 'c', 'before')).toBe(order);
    expect(dropField(order, 'b', 'a', 'after')).toBe(order);
    expect(dropField(order, 'x', 'a', 'before')).toBe(order);
    expect(dropField(order, 'a', 'x', 'before')).toBe(order);
  });

  it('keeps every field exactly once whatever is moved', () => {
    let current: readonly string[] = ['p', 'q', 'r', 's', 't', 'u'];
    const moves: [string, string, 'before' | 'after'][] = [
      ['p', 'u', 'after'],
      ['t', 'q', 'before'],
      ['r', 'r', 'before'],
      ['s', 'p', 'after'],
    ];
    for (const [dragged, target, side] of moves) current = dropField(current, dragged, target, side);
    expect([...current].sort()).toEqual(['p', 'q', 'r', 's', 't', 'u']);
    expect(current).toEqual(['t', 'q', 'r', 'u', 'p', 's']);
  });

  it('reads a typed order, commas, spaces and new lines alike, and writes it back', () => {
    expect(parseOrderText(' load, run_node\nvruntime ,,  avg ')).toEqual(['load', 'run_node', 'vruntime', 'avg']);
    expect(parseOrderText('')).toEqual([]);
    expect(orderText(['load', 'avg'])).toBe('load, avg');
    expect(parseOrderText(orderText(['a', 'b', 'c']))).toEqual(['a', 'b', 'c']);
  });
});

describe('the policy.struct_layout value of an order', () => {
  const original = { sched_entity: ['load', 'vruntime', 'avg'], cfs_rq: ['load', 'curr'] };

  it('lists only the structures that differ from the original order', () => {
    expect(explicitLayout({ sched_entity: ['vruntime', 'load', 'avg'], cfs_rq: ['load', 'curr'] }, original)).toEqual({ sched_entity: ['vruntime', 'load', 'avg'] });
    expect(explicitLayout({ sched_entity: ['vruntime', 'load', 'avg'], cfs_rq: ['curr', 'load'] }, original)).toEqual({
      sched_entity: ['vruntime', 'load', 'avg'],
      cfs_rq: ['curr', 'load'],
    });
    expect(explicitLayout(original, original)).toEqual({});
  });

  it('gives struct_layout_json its text: empty for the original, JSON otherwise', () => {
    expect(layoutSpecText(undefined)).toBe('');
    expect(layoutSpecText('original')).toBe('');
    expect(layoutSpecText('reordered')).toBe('"reordered"');
    expect(layoutSpecText({ cfs_rq: ['curr', 'load'] })).toBe('{"cfs_rq":["curr","load"]}');
  });

  it('names the choice a value is', () => {
    expect(layoutChoice(undefined)).toBe('original');
    expect(layoutChoice('original')).toBe('original');
    expect(layoutChoice('reordered')).toBe('reordered');
    expect(layoutChoice({ sched_entity: ['load'] })).toBe('custom');
  });
});

describe('the misses table', () => {
  const misses = (total: number, rows: [string, number, number, number][]): CacheMisses => ({
    total,
    by_operation: Object.fromEntries(rows.map(([name, , se, rq]) => [name, se + rq])),
    by_struct: { sched_entity: rows.reduce((sum, row) => sum + row[2], 0), cfs_rq: rows.reduce((sum, row) => sum + row[3], 0) },
    detail: rows.map(([operation, calls, se, rq]) => ({ operation, calls, sched_entity: se, cfs_rq: rq })),
    accesses: 0,
    remote: 0,
    layout: 'original',
    lines: { sched_entity: 4, cfs_rq: 8 },
  });
  const original = misses(300, [
    ['enqueue_entity', 10, 100, 100],
    ['entity_tick', 5, 50, 0],
    ['tg_throttle_down', 2, 0, 50],
  ]);
  const current = misses(210, [
    ['enqueue_entity', 10, 80, 60],
    ['entity_tick', 5, 50, 0],
    ['tg_throttle_down', 2, 0, 20],
  ]);

  it('sets each operation against the original with the change in %', () => {
    const rows = missRows(['enqueue_entity', 'entity_tick', 'tg_throttle_down', 'dequeue_entity'], original, current);
    expect(rows.map((row) => [row.operation, row.original, row.current, row.changePct])).toEqual([
      ['enqueue_entity', 200, 140, -30],
      ['entity_tick', 50, 50, 0],
      ['tg_throttle_down', 50, 20, -60],
      // An operation neither run has called: no misses, and no change to speak of.
      ['dequeue_entity', 0, 0, undefined],
    ]);
    expect(rows[0]?.calls).toBe(10);
  });

  it('has a row for each structure and the total', () => {
    expect(missTotals(original, current).map((row) => [row.operation, row.original, row.current, row.changePct])).toEqual([
      ['sched_entity', 150, 130, (-20 / 150) * 100],
      ['cfs_rq', 150, 80, (-70 / 150) * 100],
      ['total', 300, 210, -30],
    ]);
  });

  it('leaves the figures of a run not read yet empty', () => {
    const rows = missRows(['enqueue_entity'], undefined, current);
    expect(rows[0]).toEqual({ operation: 'enqueue_entity', calls: 10, original: undefined, current: 140, changePct: undefined });
    expect(missTotals(original, undefined)[2]?.current).toBeUndefined();
  });

  it('sorts by name, or by misses with the empty last', () => {
    const rows = missRows(['tg_throttle_down', 'enqueue_entity', 'entity_tick'], original, current);
    const names = (sorted: readonly { operation: string }[]) => sorted.map((row) => row.operation);
    expect(names(sortMissRows(rows, { key: 'operation', direction: 'ascending' }))).toEqual(['enqueue_entity', 'entity_tick', 'tg_throttle_down']);
    expect(names(sortMissRows(rows, { key: 'current', direction: 'descending' }))).toEqual(['enqueue_entity', 'entity_tick', 'tg_throttle_down']);
    expect(names(sortMissRows(rows, { key: 'original', direction: 'ascending' }))).toEqual(['entity_tick', 'tg_throttle_down', 'enqueue_entity']);
    expect(names(sortMissRows(rows, { key: 'change', direction: 'ascending' }))).toEqual(['tg_throttle_down', 'enqueue_entity', 'entity_tick']);
    // By calls too, most first: each row's calls, as the table shows them.
    const byCalls = sortMissRows(rows, { key: 'calls', direction: 'descending' });
    const calls = byCalls.map((row) => row.calls ?? -1);
    expect(calls).toEqual([...calls].sort((a, b) => b - a));
    const withEmpty = [...rows, { operation: 'aaa', calls: undefined, original: undefined, current: undefined, changePct: undefined }];
    expect(names(sortMissRows(withEmpty, { key: 'calls', direction: 'ascending' })).at(-1)).toBe('aaa');
    expect(names(sortMissRows(withEmpty, { key: 'current', direction: 'ascending' })).at(-1)).toBe('aaa');
    expect(names(sortMissRows(withEmpty, { key: 'current', direction: 'descending' })).at(-1)).toBe('aaa');
  });

  it('turns a sort round on its own column, and starts a new one its natural way', () => {
    expect(nextMissSort({ key: 'current', direction: 'descending' }, 'current')).toEqual({ key: 'current', direction: 'ascending' });
    expect(nextMissSort({ key: 'current', direction: 'descending' }, 'operation')).toEqual({ key: 'operation', direction: 'ascending' });
    expect(nextMissSort({ key: 'operation', direction: 'ascending' }, 'change')).toEqual({ key: 'change', direction: 'descending' });
  });

  it('writes changes as the Comparison table does', () => {
    expect(changePct(200, 140)).toBe(-30);
    expect(changePct(0, 5)).toBeUndefined();
    expect(formatChangePct(-30)).toBe('−30.0 %');
    expect(formatChangePct(2)).toBe('+2.0 %');
    expect(formatChangePct(0.01)).toBe('0.0 %');
    expect(formatChangePct(undefined)).toBe('—');
  });
});
