import { describe, expect, it } from 'vitest';
import { editedTitle } from './Toolbar';

describe('the edited scenario in the picker', () => {
  it('is titled on hover by the title its text gives', () => {
    expect(editedTitle('{"title": "hackbench on my laptop", "seed": 2}')).toBe('Edited scenario: hackbench on my laptop');
  });

  it('falls back to its plain name when the text has no usable title', () => {
    expect(editedTitle('{"seed": 2}')).toBe('Edited scenario');
    expect(editedTitle('{"title": "   "}')).toBe('Edited scenario');
    expect(editedTitle('{"title": 7}')).toBe('Edited scenario');
    expect(editedTitle('null')).toBe('Edited scenario');
    expect(editedTitle('{ not json')).toBe('Edited scenario');
  });
});
