import { describe, expect, it } from 'vitest';
import { selectAll } from 'd3';
import { setAttrs, setText } from './d3set';

/** An element that records every write it gets. */
class FakeElement {
  readonly attributes = new Map<string, string>();
  readonly writes: string[] = [];
  text = '';
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  setAttribute(name: string, value: string): void {
    this.writes.push(`set ${name}=${value}`);
    this.attributes.set(name, value);
  }
  removeAttribute(name: string): void {
    this.writes.push(`remove ${name}`);
    this.attributes.delete(name);
  }
  get textContent(): string {
    return this.text;
  }
  set textContent(value: string) {
    this.writes.push(`text ${value}`);
    this.text = value;
  }
}

describe('setAttrs and setText', () => {
  it('write what differs, as D3 would write it, and leave what is already there', () => {
    const first = new FakeElement();
    const second = new FakeElement();
    const elements = [first, second];
    const draw = (values: number[], dashed: boolean) => {
      const selection = selectAll(elements as unknown as Element[]).data(values);
      setAttrs(selection, { class: 'grid', y: (value, index) => value * 10 + index, dash: dashed ? '5 3' : null });
      setText(selection, (value) => `${value} us`);
    };
    draw([1, 2], true);
    expect(first.writes).toEqual(['set class=grid', 'set y=10', 'set dash=5 3', 'text 1 us']);
    expect(second.attributes.get('y')).toBe('21');
    for (const element of elements) element.writes.length = 0;
    // The same drawing again writes nothing.
    draw([1, 2], true);
    expect(elements.flatMap((element) => element.writes)).toEqual([]);
    // One value changes, and the dash goes: only those are written.
    draw([1, 3], false);
    expect(first.writes).toEqual(['remove dash']);
    expect(second.writes).toEqual(['set y=31', 'remove dash', 'text 3 us']);
  });
});
