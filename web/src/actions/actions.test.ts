import { describe, expect, it } from 'vitest';
import { actionForKey, type Action } from './actions';

const step: Action = { id: 'step', name: 'Step', keys: ['.', 'ArrowRight'], perform: () => undefined } as Action;

function key(name: string, extra: Partial<KeyboardEvent> = {}): KeyboardEvent {
  return { key: name, target: null, ctrlKey: false, metaKey: false, altKey: false, defaultPrevented: false, ...extra } as unknown as KeyboardEvent;
}

describe('the page shortcuts', () => {
  it('answer their keys', () => {
    expect(actionForKey([step], key('ArrowRight'))?.id).toBe('step');
  });

  it('leave a key that a widget took for itself (a chart read by the arrow keys)', () => {
    expect(actionForKey([step], key('ArrowRight', { defaultPrevented: true }))).toBeUndefined();
  });
});
