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

  it('leave Space to a focused box that scrolls, and still play from the rest of the page', () => {
    const play: Action = { id: 'play-pause', name: 'Play or pause', keys: [' ', 'k'], perform: () => undefined } as Action;
    const inBox = { closest: (selector: string) => (selector === '[role="region"][tabindex]' ? {} : null), tagName: 'P', isContentEditable: false };
    const elsewhere = { closest: () => null, tagName: 'DIV', isContentEditable: false };
    expect(actionForKey([play], key(' ', { target: inBox as unknown as EventTarget }))).toBeUndefined();
    expect(actionForKey([play], key('k', { target: inBox as unknown as EventTarget }))?.id).toBe('play-pause');
    expect(actionForKey([play], key(' ', { target: elsewhere as unknown as EventTarget }))?.id).toBe('play-pause');
  });
});
