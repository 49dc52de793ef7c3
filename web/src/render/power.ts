/**
 * The power model on the machine drawing: each socket's header carries its
 * frequency and a bar of its power draw against its budget, and each core shows
 * its idle state (active as usual; shallow idle pale with a dashed rim; deep idle
 * dark and hatched) with a label where it fits. Sizes are CSS pixels (the SVG is
 * drawn at 1:1), with type at 12 px or more so it reads on a projector.
 */
import { select, type Selection } from 'd3';
import { setAttrs } from './d3set';
import type { LabelledBox } from './layout';
import type { CoreIdle, PowerFrame, PowerOn } from '../store/power';
import { formatGhz, formatWatts, idleLabel } from '../store/power';

/** The socket header when the power model runs: taller than the plain one, and wide enough for its figures. */
export const SOCKET_POWER_HEADER = {
  height: 26,
  /** `socket 0`, `3.80 GHz`, the bar and `152 W / 190 W`, with room to spare. */
  minWidth: 372,
  /** Where the figures start, after the socket's label. */
  mhzX: 76,
  barX: 160,
  barWidth: 96,
  barHeight: 12,
  wattsX: 264,
  /** The text baseline, from the socket's top. */
  baseline: 18,
} as const;

/** Fills of idle cells by their core's state (a thread idle on an active core stays grey). */
export const SHALLOW_FILL = '#d9ebfa';
export const SHALLOW_RIM = '#4a78a8';
export const DEEP_FILL = '#243b53';
export const DEEP_HATCH = '#486581';
/** The pattern deep-idle cells are filled with (one per document: there is one machine drawing). */
export const DEEP_PATTERN_ID = 'schedlab-deep-idle';

/** The power bar's fill: blue under budget, orange close to it, red over. */
export function powerBarFill(share: number): string {
  if (share > 1) return '#c53030';
  if (share >= 0.9) return '#dd6b20';
  return '#3e6ea5';
}

/** What the machine drawing shows of the power model: its figures and this frame's state. */
export interface PowerView {
  readonly info: PowerOn;
  readonly frame: PowerFrame;
}

/** A CPU cell's fill when it runs nothing, by its core's idle state. */
export function idleCellFill(state: CoreIdle | undefined, idleFill: string): string {
  if (state === 'deep') return `url(#${DEEP_PATTERN_ID})`;
  if (state === 'shallow') return SHALLOW_FILL;
  return idleFill;
}

/** The plain colour under an idle cell's fill (the pattern's base for a deep one), for choosing its text colour. */
export function idleCellBase(state: CoreIdle | undefined, idleFill: string): string {
  return state === 'deep' ? DEEP_FILL : state === 'shallow' ? SHALLOW_FILL : idleFill;
}

/** Bold 12 px text is about this wide per character (system-ui); a little generous, so a label never spills. */
const CHAR_PX = 7.4;

/**
 * The label a core box shows for its idle state: the longest of `deep idle`,
 * `deep` that fits `width` pixels; nothing for an active core or when none fits.
 */
export function coreIdleText(state: CoreIdle, width: number): string {
  if (state === 'active') return '';
  const name = state === 'deep' ? 'deep' : 'shallow';
  return [`${name} idle`, name].find((text) => text.length * CHAR_PX <= width - 6) ?? '';
}

type Layer = Selection<SVGGElement, string, SVGSVGElement, unknown>;

/** The hatch pattern for deep idle cells, in the SVG's `defs` (also kept in an exported SVG). */
export function ensureDeepPattern(svg: Selection<SVGSVGElement, unknown, null, undefined>): void {
  const defs = setAttrs(svg.selectAll<SVGDefsElement, string>('defs.power-defs').data(['defs']).join('defs'), { class: 'power-defs' });
  const pattern = defs
    .selectAll<SVGPatternElement, string>('pattern')
    .data([DEEP_PATTERN_ID])
    .join((enter) => {
      const created = enter.append('pattern').attr('id', (id) => id).attr('patternUnits', 'userSpaceOnUse').attr('width', 6).attr('height', 6);
      created.attr('patternTransform', 'rotate(45)');
      created.append('rect').attr('width', 6).attr('height', 6).attr('fill', DEEP_FILL);
      created.append('rect').attr('width', 2).attr('height', 6).attr('fill', DEEP_HATCH);
      return created;
    });
  // Written only when it differs: setting a pattern's id, even to the same value,
  // makes the browser lay out again every shape of the drawing.
  setAttrs(pattern, { id: (id) => id });
}

/** Each socket's frequency, power bar and watts in its header; nothing when the model is off. */
export function drawSocketPower(layer: Layer, sockets: readonly LabelledBox[], power: PowerView | undefined): void {
  const rows = power
    ? sockets.map((box) => {
        const figures = power.frame.sockets[box.id];
        const budget = power.info.budget_w_by_socket[box.id] ?? 0;
        return { box, mhz: figures?.mhz ?? 0, watts: figures?.watts ?? 0, budget };
      })
    : [];
  type Row = (typeof rows)[number];
  const H = SOCKET_POWER_HEADER;
  layer
    .selectAll<SVGGElement, Row>('g.socket-power')
    .data(rows, (row) => row.box.id)
    .join((enter) => {
      const group = enter.append('g').attr('class', 'socket-power');
      group.append('title');
      group.append('text').attr('class', 'socket-mhz');
      group.append('rect').attr('class', 'power-budget').attr('rx', 2);
      group.append('rect').attr('class', 'power-used').attr('rx', 2);
      group.append('text').attr('class', 'socket-watts');
      return group;
    })
    .attr('data-socket', (row) => row.box.id)
    .attr('data-mhz', (row) => row.mhz.toFixed(0))
    .attr('data-watts', (row) => row.watts.toFixed(1))
    .attr('data-budget', (row) => row.budget.toFixed(1))
    .each(function (row) {
      const group = select(this);
      const { box } = row;
      const share = row.budget > 0 ? row.watts / row.budget : 0;
      const barY = box.y + H.baseline - H.barHeight + 1;
      group.select('text.socket-mhz').attr('x', box.x + H.mhzX).attr('y', box.y + H.baseline).text(formatGhz(row.mhz));
      group.select('rect.power-budget').attr('x', box.x + H.barX).attr('y', barY).attr('width', H.barWidth).attr('height', H.barHeight);
      group
        .select('rect.power-used')
        .attr('x', box.x + H.barX)
        .attr('y', barY)
        .attr('height', H.barHeight)
        .attr('width', Math.min(1, Math.max(0, share)) * H.barWidth)
        .attr('fill', powerBarFill(share));
      group.select('text.socket-watts').attr('x', box.x + H.wattsX).attr('y', box.y + H.baseline).text(formatWatts(row.watts, row.budget));
      group
        .select('title')
        .text(
          `Socket ${box.id}: ${row.mhz.toFixed(0)} MHz (nominal ${power?.info.nominal_mhz ?? 0} MHz); drawing ${row.watts.toFixed(1)} W of its ${row.budget.toFixed(0)} W budget (${(100 * share).toFixed(0)} %)`,
        );
    });
}

/** Each idle core's state as a label over its box, with a tooltip naming the platform's state. */
export function drawCoreIdle(layer: Layer, cores: readonly LabelledBox[], cell: number, power: PowerView | undefined, showText: boolean): void {
  const rows = power ? cores.map((box) => ({ box, state: power.frame.cores[box.id] ?? ('active' as CoreIdle) })) : [];
  type Row = (typeof rows)[number];
  layer
    .selectAll<SVGGElement, Row>('g.core-idle')
    .data(rows, (row) => row.box.id)
    .join((enter) => {
      const group = enter.append('g').attr('class', 'core-idle');
      group.append('title');
      group.append('rect').attr('class', 'core-rim').attr('rx', 3);
      group.append('text').attr('class', 'core-idle-label');
      return group;
    })
    .attr('data-core', (row) => row.box.id)
    .attr('data-idle', (row) => row.state)
    .each(function (row) {
      const group = select(this);
      const { box, state } = row;
      group
        .select('rect.core-rim')
        .attr('x', box.x + 1)
        .attr('y', box.y + 1)
        .attr('width', box.width - 2)
        .attr('height', box.height - 2)
        .attr('visibility', state === 'shallow' ? 'visible' : 'hidden');
      group
        .select('text.core-idle-label')
        .attr('x', box.x + box.width / 2)
        // Centred on the cells (whose CPU numbers it replaces), with a halo of the fill under it.
        .attr('y', box.y + 3 + cell / 2)
        .attr('fill', state === 'deep' ? '#ffffff' : '#102a43')
        .attr('stroke', state === 'deep' ? DEEP_FILL : SHALLOW_FILL)
        .text(showText ? coreIdleText(state, box.width) : '');
      group.select('title').text(power ? `Core ${box.id}: ${idleLabel(state, power.info)}${idleNote(state, power.info)}` : '');
    });
}

/** The state's exit latency and target residency, for a tooltip. */
function idleNote(state: CoreIdle, info: PowerOn): string {
  if (state === 'active') return '';
  const figures = state === 'deep' ? info.deep : info.shallow;
  return `: exit latency ${formatNs(figures.exit_latency_ns)}, target residency ${formatNs(figures.target_residency_ns)}`;
}

/** `10 us`, `10 ms`. */
export function formatNs(ns: number): string {
  if (ns >= 1e6 && ns % 1e5 === 0) return `${ns / 1e6} ms`;
  if (ns >= 1e3) return `${Number((ns / 1e3).toFixed(1))} us`;
  return `${ns} ns`;
}
