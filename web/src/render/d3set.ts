/**
 * D3's `attr` and `text`, writing only what differs. A chart redrawn with the same
 * ticks, gridlines or labels then leaves their elements alone: writing an SVG
 * attribute or a text, even to the value it has, makes the browser restyle, lay
 * out and repaint that part of the page.
 */
import type { BaseType, Selection } from 'd3';

/** A value, or a function of the datum and index as D3 takes it; `null` removes the attribute. */
export type AttrValue<D> = string | number | null | ((datum: D, index: number) => string | number | null);

/** Sets each attribute of `values` on every element of `selection` where it differs. */
export function setAttrs<E extends Element, D, P extends BaseType, PD>(selection: Selection<E, D, P, PD>, values: Readonly<Record<string, AttrValue<D>>>): Selection<E, D, P, PD> {
  return selection.each(function (datum, index) {
    for (const name of Object.keys(values)) {
      const spec = values[name];
      const raw = typeof spec === 'function' ? spec(datum, index) : spec;
      const next = raw === null || raw === undefined ? null : String(raw);
      if (this.getAttribute(name) === next) continue;
      if (next === null) this.removeAttribute(name);
      else this.setAttribute(name, next);
    }
  });
}

/** Sets every element's text where it differs. */
export function setText<E extends Element, D, P extends BaseType, PD>(selection: Selection<E, D, P, PD>, value: (datum: D, index: number) => string): Selection<E, D, P, PD> {
  return selection.each(function (datum, index) {
    const next = value(datum, index);
    if (this.textContent !== next) this.textContent = next;
  });
}
