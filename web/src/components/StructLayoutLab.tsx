import { useCallback, useEffect, useId, useMemo, useRef, useState, useSyncExternalStore, type KeyboardEvent as ReactKeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { STRUCT_NAMES, type LayoutReport, type LayoutResult, type StructLayout, type StructName } from '../engine/protocol';
import { scenarioSchema } from '../engine/validate';
import { allControls, currentSetting, parseScenarioValue, policyGroups, setOverride, type PolicyControl, type SettingValue } from '../store/policy';
import {
  DEFAULT_MISS_SORT,
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
  moveFieldBy,
  nextMissSort,
  orderText,
  ordersOf,
  parseOrderText,
  sortMissRows,
  touchedFields,
  type FieldFigures,
  type LayoutChoice,
  type LayoutOrders,
  type MissRow,
  type MissSort,
  type MissSortKey,
} from '../store/structLayout';
import { hasLayoutModel, STRUCT_LAYOUT_PATH, type RunFigures, type RunFiguresState } from '../store/runFigures';
import { heatScale, structDrawing, STRUCT_GEOMETRY, type HeatScale, type Measure, type StructDrawing } from '../render/structLayout';
import { formatCount, formatTraceTime } from '../base/format';
import { simTimeNs } from '../base/types';
import { useAppState } from './useStore';
import { useElementWidth } from './useElementWidth';

/** The Policy panel's control for `policy.struct_layout` (built from the schema, like the panel's). */
const CONTROL: PolicyControl | undefined = allControls(policyGroups(scenarioSchema)).find((control) => control.path === STRUCT_LAYOUT_PATH);

/**
 * Each drawing at least this wide to stand beside the other. Narrower, the
 * original goes right under the current layout, byte columns aligned: two
 * drawings of half a 1,000-pixel column would leave a byte under 7 pixels and
 * most names broken or cut, unreadable on a projector.
 */
const SIDE_BY_SIDE_MIN = 600;

/** The font of the names in the boxes, at a size: the measure and the CSS (`svg .field-name`) must agree. */
const nameFont = (fontPx: number) => `600 ${fontPx}px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif`;

const CHOICES: readonly { readonly choice: LayoutChoice; readonly label: string; readonly hint: string }[] = [
  { choice: 'original', label: 'Original', hint: "6.15's declaration order" },
  { choice: 'reordered', label: 'Reordered', hint: "the patch series' order: hot fields together" },
  { choice: 'custom', label: 'Custom', hint: 'your order: drag a field, or select one and move it' },
];

/** How long a field moved by key keeps the focus through the redraws that follow (the core's check, the re-run). */
const FOCUS_FOLLOW_MS = 5_000;

/** Layout reports by spec text: the core's answer never changes for a text, so they are kept for the page's life. */
const reportCache = new Map<string, LayoutResult>();

/** The reports for these spec texts, asked of the engine once each. */
function useReports(controller: Controller, specs: readonly string[]): ReadonlyMap<string, LayoutResult> {
  const [, setVersion] = useState(0);
  const key = specs.join('\u0000');
  useEffect(() => {
    let live = true;
    for (const spec of key.split('\u0000')) {
      if (reportCache.has(spec)) continue;
      void controller.structLayout(spec).then((result) => {
        reportCache.set(spec, result);
        if (live) setVersion((version) => version + 1);
      });
    }
    return () => {
      live = false;
    };
  }, [controller, key]);
  return reportCache;
}

let measureContext: CanvasRenderingContext2D | null | undefined;
const measured = new Map<string, number>();
/** Text widths at the names' font, from a canvas (estimated where there is none). */
const measureName: Measure = (text, fontPx) => {
  const key = `${fontPx}|${text}`;
  let width = measured.get(key);
  if (width !== undefined) return width;
  measureContext ??= document.createElement('canvas').getContext('2d');
  if (measureContext) {
    measureContext.font = nameFont(fontPx);
    width = measureContext.measureText(text).width;
  } else {
    width = text.length * fontPx * 0.6;
  }
  measured.set(key, width);
  return width;
};

function useFigures<T>(figures: RunFigures, pick: (state: RunFiguresState) => T): T {
  return useSyncExternalStore(figures.state.subscribe, () => pick(figures.state.get()));
}

/** The user's own order, kept across choices and scenarios (the structures are the kernel's, whatever runs). */
interface Draft {
  readonly orders: LayoutOrders;
  /** Text typed into a structure's order field and not yet applied. */
  readonly typed: Readonly<Partial<Record<StructName, string>>>;
}

interface Selected {
  readonly struct: StructName;
  readonly field: string;
}

/**
 * The struct-layout lab (seed 002, the cfs_rq / sched_entity reordering series):
 * both structures as 64-byte cache lines in the current layout with 6.15's
 * original beside it, fields coloured by how often the run's operations touch
 * them, the lines an operation touches on a click, the layout chosen (original,
 * the patch's, or the user's own order, dragged or moved by key, checked by the
 * core), and the misses per operation of the original layout's run against this one.
 */
export function StructLayoutLab({ store, controller, figures }: { store: AppStore; controller: Controller; figures: RunFigures }) {
  const shown = useAppState(store, (s) => hasLayoutModel(s));
  if (!shown || !CONTROL) return null;
  return <Lab store={store} controller={controller} figures={figures} control={CONTROL} />;
}

function Lab({ store, controller, figures, control }: { store: AppStore; controller: Controller; figures: RunFigures; control: PolicyControl }) {
  const fileText = useAppState(store, (s) => s.fileText);
  const overrides = useAppState(store, (s) => s.policyOverrides);
  const status = useAppState(store, (s) => s.status);
  const scenarioId = useAppState(store, (s) => s.scenarioId);
  // Whether the run has reached its end (not its clock: the lab need not redraw every frame).
  const atEnd = useAppState(store, (s) => s.frame !== undefined && (s.frame.finished || (s.loaded !== undefined && s.frame.nowNs >= s.loaded.endNs)));
  const endNs = useAppState(store, (s) => s.loaded?.endNs ?? 0);
  const live = useFigures(figures, (s) => s.live);
  const original = useFigures(figures, (s) => s.original);
  const file = useMemo(() => parseScenarioValue(fileText), [fileText]);
  const value: SettingValue | undefined = currentSetting(control, file, overrides);
  const runChoice = layoutChoice(value);

  const [customOpen, setCustomOpen] = useState(false);
  /** A named layout chosen whose re-run has not finished: shown chosen meanwhile. */
  const [asked, setAsked] = useState<LayoutChoice | undefined>(undefined);
  const [draft, setDraft] = useState<Draft | undefined>(undefined);
  const [draftSpec, setDraftSpec] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [operation, setOperation] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState<Selected | undefined>(undefined);
  /**
   * A re-run for the custom order is in flight; `pending` is the newest order
   * made meanwhile (moves made faster than the runs coalesce into one more run).
   */
  const rerun = useRef<{ running: boolean; pending: SettingValue | undefined }>({ running: false, pending: undefined });
  /** Bumped by each check of an order: only the latest one's answer counts. */
  const checkCount = useRef(0);

  const choice: LayoutChoice = asked ?? (customOpen ? 'custom' : runChoice);
  const currentSpec = layoutSpecText(value);
  const reports = useReports(controller, draftSpec === undefined ? ['', currentSpec] : ['', currentSpec, draftSpec]);
  const originalResult = reports.get('');
  const runResult = reports.get(currentSpec);
  const draftResult = draftSpec === undefined ? undefined : reports.get(draftSpec);
  const originalReport = originalResult?.ok ? originalResult.report : undefined;
  // What the drawing shows as current: the custom order being applied, else the run's layout.
  const shownReport = choice === 'custom' && draftResult?.ok ? draftResult.report : runResult?.ok ? runResult.report : undefined;

  const heat = useMemo(() => (originalReport ? fieldHeat(originalReport.operations, live?.cacheMisses?.detail ?? []) : undefined), [originalReport, live]);
  const maxHeat = heat ? Math.max(0, ...STRUCT_NAMES.flatMap((struct) => [...heat[struct].values()])) : 0;
  const scale = useMemo(() => heatScale(maxHeat), [maxHeat]);

  const hostRef = useRef<HTMLDivElement>(null);
  const hostWidth = useElementWidth(hostRef, 960);
  const besides = (hostWidth - 16) / 2 >= SIDE_BY_SIDE_MIN;
  const drawingWidth = Math.floor(besides ? (hostWidth - 16) / 2 : hostWidth);

  if (!originalReport || !shownReport) {
    return (
      <section className="panel struct-lab" aria-labelledby="struct-lab-title">
        <div ref={hostRef}>
          <h2 id="struct-lab-title">Struct layout lab</h2>
          <p className="muted">{originalResult && !originalResult.ok ? `The layout model did not answer: ${originalResult.message}` : 'Laying out the structures…'}</p>
        </div>
      </section>
    );
  }
  const originalOrders = ordersOf(originalReport);
  const orders = draft?.orders ?? ordersOf(shownReport);
  const ready = status === 'ready';

  /** Re-runs with `policy.struct_layout` set, as a Policy panel change does (so the links and the kept session follow). */
  const applySetting = (setting: SettingValue): Promise<void> =>
    controller.updatePolicy((current) => setOverride(current, control, setting, file)).then((ok) => {
      if (!ok) setProblem('The simulator refused this layout; the previous run is still loaded (the Policy panel says why).');
    });
  /** The custom order's re-run: at once, or after the one in flight with the newest order. */
  const rerunWith = (setting: SettingValue) => {
    const state = rerun.current;
    if (state.running) {
      state.pending = setting;
      return;
    }
    state.running = true;
    void applySetting(setting).finally(() => {
      state.running = false;
      const next = state.pending;
      state.pending = undefined;
      if (next !== undefined) rerunWith(next);
    });
  };

  /**
   * Checks an order with the core: a valid one is drawn at once and becomes the
   * run's layout; an invalid one is said, and the order (and any text
   * typed, `typed`) stays as the user left it. `applied` is the structure whose
   * typed text this order comes from: once valid, its field shows the order again.
   */
  const tryOrders = (next: LayoutOrders, typed: Draft['typed'] = draft?.typed ?? {}, applied?: StructName) => {
    const setting = explicitLayout(next, originalOrders);
    const spec = JSON.stringify(setting);
    const check = ++checkCount.current;
    void controller.structLayout(spec).then((result) => {
      if (check !== checkCount.current) return;
      reportCache.set(spec, result);
      if (!result.ok) {
        setProblem(result.message);
        return;
      }
      setProblem(undefined);
      setDraftSpec(spec);
      setDraft((previous) => ({ orders: next, typed: applied ? { ...(previous?.typed ?? typed), [applied]: undefined } : (previous?.typed ?? typed) }));
      rerunWith(setting);
    });
    // A typed order is kept as text until the core accepts it; a moved one is drawn from the draft.
    if (!applied) setDraft({ orders: next, typed });
  };

  const choose = (next: LayoutChoice) => {
    if (next === 'custom') {
      setCustomOpen(true);
      // The order kept from before comes back; else the layout playing is the start.
      if (draft && runChoice !== 'custom') tryOrders(draft.orders);
      else if (!draft) setDraft({ orders: ordersOf(shownReport), typed: {} });
      return;
    }
    rerun.current.pending = undefined;
    setCustomOpen(false);
    setProblem(undefined);
    setDraftSpec(undefined);
    if (next === runChoice) return;
    setAsked(next);
    void applySetting(next).finally(() => setAsked(undefined));
  };

  const move = (struct: StructName, field: string, delta: number) => {
    const moved = moveFieldBy(orders[struct], field, delta);
    if (moved !== orders[struct]) tryOrders({ ...orders, [struct]: moved });
  };
  const drop = (struct: StructName, dragged: string, target: string, side: 'before' | 'after') => {
    const moved = dropField(orders[struct], dragged, target, side);
    setSelected({ struct, field: dragged });
    if (moved !== orders[struct]) tryOrders({ ...orders, [struct]: moved });
  };
  const applyTyped = (struct: StructName) => {
    const text = draft?.typed[struct];
    if (text === undefined) return;
    tryOrders({ ...orders, [struct]: parseOrderText(text) }, draft?.typed ?? {}, struct);
  };
  const typeOrder = (struct: StructName, text: string) => setDraft({ orders, typed: { ...(draft?.typed ?? {}), [struct]: text } });

  const operations = originalReport.operations;
  const highlighted = operations.find((entry) => entry.operation === operation);
  const liveAt = live ? formatTraceTime(simTimeNs(live.nowNs)) : undefined;
  // The drawing names the layout it shows; the table, the layout the playing run has.
  const shownLabel = choice === 'custom' && draftResult?.ok ? 'custom' : runChoice;

  return (
    <section className="panel struct-lab" aria-labelledby="struct-lab-title">
      <div ref={hostRef}>
      <div className="struct-lab-head">
        <h2 id="struct-lab-title">Struct layout lab</h2>
        <span className="tag">series 002 · kernel {originalReport.kernel} structures</span>
        <span className="muted">
          <code>struct sched_entity</code> {shownReport.sched_entity.size} B in {shownReport.sched_entity.lines} lines, <code>struct cfs_rq</code> {shownReport.cfs_rq.size} B in{' '}
          {shownReport.cfs_rq.lines} lines (original: {originalReport.sched_entity.lines} and {originalReport.cfs_rq.lines})
        </span>
      </div>
      <div className="struct-lab-controls">
        <fieldset className="layout-choice" disabled={!ready}>
          <legend>Layout</legend>
          {CHOICES.map((entry) => (
            <label key={entry.choice} title={entry.hint}>
              <input type="radio" name="struct-layout-choice" value={entry.choice} checked={choice === entry.choice} onChange={() => choose(entry.choice)} />
              {entry.label}
            </label>
          ))}
        </fieldset>
        <p className="muted struct-lab-hint">
          Each choice re-runs <code>{scenarioId === 'custom' ? 'the edited scenario' : scenarioId}</code> from time 0 with the same seed and <code>policy.struct_layout</code> set.
          {choice === 'custom' && ' Drag a field onto another place in the current layout, or select it (arrow keys go from field to field) and use Move earlier / Move later (or Alt+arrow keys).'}
        </p>
      </div>
      {problem !== undefined && (
        <div className="problems struct-lab-problem" role="alert" data-testid="layout-problem">
          <p>This order is not a layout: {problem}.</p>
          <p className="muted">Not applied: the run keeps its layout, and your order is kept below to correct.</p>
        </div>
      )}
      <HeatLegend scale={scale} maxHeat={maxHeat} at={liveAt} />
      <div className="struct-ops" role="group" aria-label="Operations">
        <span className="struct-ops-title">Operations (click one for the lines it touches):</span>
        {operations.map((entry) => {
          const touched = (report: LayoutReport) => STRUCT_NAMES.map((struct) => linesTouched(report[struct], touchedFields(entry, struct)).length);
          const [seNow, rqNow] = touched(shownReport);
          const [seWas, rqWas] = touched(originalReport);
          return (
            <button
              key={entry.operation}
              type="button"
              className="struct-op"
              aria-pressed={operation === entry.operation}
              title={`${entry.operation}: ${seNow} sched_entity + ${rqNow} cfs_rq lines in this layout; ${seWas} + ${rqWas} in the original`}
              onClick={() => setOperation(operation === entry.operation ? undefined : entry.operation)}
            >
              <code>{entry.operation}</code>
              <span className="struct-op-lines">
                {(seNow ?? 0) + (rqNow ?? 0)} lines{choice === 'original' ? '' : ` (was ${(seWas ?? 0) + (rqWas ?? 0)})`}
              </span>
            </button>
          );
        })}
      </div>
      {selected && <FieldDetail report={shownReport} selected={selected} heat={heat} operations={operations} />}
      {choice === 'custom' && (
        <MoveBar
          selected={selected}
          onMove={(delta) => selected && move(selected.struct, selected.field, delta)}
          canMove={(delta) => {
            if (!selected) return false;
            const index = orders[selected.struct].indexOf(selected.field);
            return index >= 0 && index + delta >= 0 && index + delta < orders[selected.struct].length;
          }}
        />
      )}
      <div className="struct-drawings">
        {STRUCT_NAMES.map((struct) => (
          <div key={struct} className="struct-pair">
            <h3>
              <code>struct {struct}</code>
            </h3>
            <div className={besides ? 'struct-pair-row' : 'struct-pair-column'}>
              <StructView
                title={`Current layout (${shownLabel})`}
                testId={`struct-current-${struct}`}
                struct={struct}
                layout={shownReport[struct]}
                width={drawingWidth}
                heat={heat}
                scale={scale}
                highlight={highlighted ? touchedFields(highlighted, struct) : undefined}
                selected={selected?.struct === struct ? selected.field : undefined}
                editable={choice === 'custom' && ready}
                onSelect={(field) => setSelected({ struct, field })}
                onMove={(field, delta) => move(struct, field, delta)}
                onDrop={(dragged, target, side) => drop(struct, dragged, target, side)}
              />
              <StructView
                title="Original (6.15)"
                testId={`struct-original-${struct}`}
                struct={struct}
                layout={originalReport[struct]}
                width={drawingWidth}
                heat={heat}
                scale={scale}
                highlight={highlighted ? touchedFields(highlighted, struct) : undefined}
                selected={selected?.struct === struct ? selected.field : undefined}
                editable={false}
                onSelect={(field) => setSelected({ struct, field })}
              />
            </div>
            {choice === 'custom' && (
              <OrderField
                struct={struct}
                text={draft?.typed[struct] ?? orderText(orders[struct])}
                typed={draft?.typed[struct] !== undefined}
                onType={(text) => typeOrder(struct, text)}
                onApply={() => applyTyped(struct)}
                onReset={() => setDraft({ orders, typed: { ...(draft?.typed ?? {}), [struct]: undefined } })}
              />
            )}
          </div>
        ))}
      </div>
      <MissesTable
        operations={operations.map((entry) => entry.operation)}
        original={original}
        live={live}
        currentLabel={runChoice}
        atEnd={atEnd}
        highlighted={operation}
        onRunToEnd={endNs > 0 && !atEnd && ready ? () => void controller.seek({ timeNs: simTimeNs(endNs), events: undefined }) : undefined}
      />
      </div>
    </section>
  );
}

/** The heat scale's key: a gradient from the coolest to the hottest field, ticks in calls, and the blank kinds. */
function HeatLegend({ scale, maxHeat, at }: { scale: HeatScale; maxHeat: number; at: string | undefined }) {
  const gradientId = `heat-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const width = 260;
  const margin = 18;
  return (
    <div className="heat-legend" data-testid="heat-legend">
      <span className="heat-legend-title">
        Heat: calls of the operations touching a field{at !== undefined ? `, this run up to t = ${at} s` : ''}
      </span>
      {maxHeat > 0 ? (
        <svg width={width + 2 * margin} height={34} role="img" aria-label={`heat scale from ${scale.ticks[0]?.label ?? '1'} to ${scale.ticks[scale.ticks.length - 1]?.label ?? ''} calls, logarithmic`}>
          <defs>
            <linearGradient id={gradientId} x1="0" x2="1" y1="0" y2="0">
              {scale.stops.map((stop) => (
                <stop key={stop.at} offset={stop.at} stopColor={stop.color} />
              ))}
            </linearGradient>
          </defs>
          <rect x={margin} y={2} width={width} height={14} fill={`url(#${gradientId})`} className="heat-bar" />
          {scale.ticks.map((tick) => (
            <g key={tick.label} transform={`translate(${margin + tick.at * width},0)`}>
              <line y1={16} y2={20} className="heat-tick" />
              <text y={31} className="heat-tick-label">
                {tick.label}
              </text>
            </g>
          ))}
        </svg>
      ) : (
        <span className="muted">no operation has run yet</span>
      )}
      <span className="heat-key">
        <span className="swatch heat-cold" /> not touched yet
      </span>
      <span className="heat-key">
        <span className="swatch heat-hole" /> hole (padding)
      </span>
    </div>
  );
}

/** The selected field: where it is, how hot, and which operations touch it. */
function FieldDetail({ report, selected, heat, operations }: { report: LayoutReport; selected: Selected; heat: FieldFigures | undefined; operations: LayoutReport['operations'] }) {
  const field = report[selected.struct].fields.find((entry) => entry.name === selected.field);
  if (!field) return null;
  const lines = fieldLines(field);
  const by = operations.filter((entry) => touchedFields(entry, selected.struct).has(field.name)).map((entry) => entry.operation);
  return (
    <p className="struct-field-detail" data-testid="field-detail" aria-live="polite">
      <code>
        {selected.struct}.{field.name}
      </code>
      : {field.size} B at offset {field.offset} (line {lines.join(' and ')}) · {formatCount(heat?.[selected.struct].get(field.name) ?? 0)} calls touch it
      {by.length > 0 ? ` · ${by.join(', ')}` : ' · no operation of the model touches it'}
    </p>
  );
}

/** Custom mode's keyboard way: the selected field one place earlier or later. */
function MoveBar({ selected, onMove, canMove }: { selected: Selected | undefined; onMove(delta: number): void; canMove(delta: number): boolean }) {
  return (
    <div className="struct-move" role="group" aria-label="Move the selected field">
      <span>
        {selected ? (
          <>
            Selected:{' '}
            <code>
              {selected.struct}.{selected.field}
            </code>
          </>
        ) : (
          'Select a field in a current layout (click it, or Tab to it and press Enter).'
        )}
      </span>
      <button type="button" disabled={!canMove(-1)} onClick={() => onMove(-1)}>
        Move earlier
      </button>
      <button type="button" disabled={!canMove(1)} onClick={() => onMove(1)}>
        Move later
      </button>
    </div>
  );
}

/** A structure's order as text, to type or paste; checked by the core on Apply, kept as typed when it is not a layout. */
function OrderField({ struct, text, typed, onType, onApply, onReset }: { struct: StructName; text: string; typed: boolean; onType(text: string): void; onApply(): void; onReset(): void }) {
  const id = useId();
  return (
    <div className="struct-order">
      <label htmlFor={id}>
        <code>{struct}</code> order (names separated by commas or spaces)
      </label>
      <textarea
        id={id}
        rows={4}
        spellCheck={false}
        value={text}
        onChange={(event) => onType(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) onApply();
        }}
      />
      <div className="struct-order-actions">
        <button type="button" onClick={onApply} disabled={!typed}>
          Apply {struct} order
        </button>
        {typed && (
          <button type="button" onClick={onReset}>
            Back to the order shown
          </button>
        )}
      </div>
    </div>
  );
}

interface DragState {
  readonly field: string;
  readonly pointerId: number;
  readonly startX: number;
  readonly startY: number;
  readonly moved: boolean;
  readonly target: { readonly field: string; readonly side: 'before' | 'after' } | undefined;
}

interface StructViewProps {
  readonly title: string;
  readonly testId: string;
  readonly struct: StructName;
  readonly layout: StructLayout;
  readonly width: number;
  readonly heat: FieldFigures | undefined;
  readonly scale: HeatScale;
  /** The fields of the operation clicked; undefined when none is. */
  readonly highlight: ReadonlySet<string> | undefined;
  readonly selected: string | undefined;
  readonly editable: boolean;
  onSelect(field: string): void;
  onMove?(field: string, delta: number): void;
  onDrop?(dragged: string, target: string, side: 'before' | 'after'): void;
}

/** One structure as rows of 64-byte lines (SVG): fields by heat, holes hatched, an operation's lines marked. */
function StructView({ title, testId, struct, layout, width, heat, scale, highlight, selected, editable, onSelect, onMove, onDrop }: StructViewProps) {
  const drawing: StructDrawing = useMemo(() => structDrawing(layout, width, measureName), [layout, width]);
  const hatchId = `hole-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const [drag, setDrag] = useState<DragState | undefined>(undefined);
  const svgRef = useRef<SVGSVGElement>(null);
  const touchedLines = useMemo(() => (highlight ? new Set(linesTouched(layout, highlight)) : undefined), [layout, highlight]);

  /** The field a point falls on (or, on a hole, the nearest field of that line) and which half of it. */
  const targetAt = useCallback(
    (x: number, y: number): DragState['target'] => {
      const line = drawing.boxes.find((box) => y >= box.y && y < box.y + box.height)?.line;
      if (line === undefined) return undefined;
      let best: { field: string; side: 'before' | 'after'; distance: number } | undefined;
      for (const box of drawing.boxes) {
        if (box.line !== line) continue;
        const distance = x < box.x ? box.x - x : x > box.x + box.width ? x - box.x - box.width : 0;
        if (!best || distance < best.distance) best = { field: box.field, side: x < box.x + box.width / 2 ? 'before' : 'after', distance };
      }
      return best ? { field: best.field, side: best.side } : undefined;
    },
    [drawing],
  );
  const point = (event: ReactPointerEvent) => {
    const rect = svgRef.current?.getBoundingClientRect();
    return { x: event.clientX - (rect?.left ?? 0), y: event.clientY - (rect?.top ?? 0) };
  };
  const onPointerDown = (event: ReactPointerEvent<SVGGElement>, field: string) => {
    if (event.button !== 0) return;
    const at = point(event);
    if (!editable) {
      onSelect(field);
      return;
    }
    svgRef.current?.setPointerCapture(event.pointerId);
    setDrag({ field, pointerId: event.pointerId, startX: at.x, startY: at.y, moved: false, target: undefined });
  };
  const onPointerMove = (event: ReactPointerEvent<SVGSVGElement>) => {
    if (!drag || event.pointerId !== drag.pointerId) return;
    const at = point(event);
    const moved = drag.moved || Math.hypot(at.x - drag.startX, at.y - drag.startY) > 4;
    setDrag({ ...drag, moved, target: moved ? targetAt(at.x, at.y) : undefined });
  };
  const onPointerUp = (event: ReactPointerEvent<SVGSVGElement>) => {
    if (!drag || event.pointerId !== drag.pointerId) return;
    setDrag(undefined);
    if (!drag.moved) onSelect(drag.field);
    else if (drag.target) onDrop?.(drag.field, drag.target.field, drag.target.side);
  };
  /**
   * One tab stop per drawing (the selected field, else the first): arrow keys go
   * from field to field, selecting as they go; with Alt they move the field. The
   * field keeps the focus while the layout is redrawn around it (its box may be
   * drawn anew on another line).
   */
  const wantFocus = useRef<{ readonly field: string; readonly until: number } | undefined>(undefined);
  useEffect(() => {
    const want = wantFocus.current;
    const svg = svgRef.current;
    if (!want || !svg) return;
    // Only for a moment after the key, and never away from anything else that has the focus.
    const active = document.activeElement;
    // `document.timeline`'s clock is the one key events are stamped with.
    const now = Number(document.timeline.currentTime ?? 0);
    if (now > want.until || (active !== null && active !== document.body && !svg.contains(active))) {
      wantFocus.current = undefined;
      return;
    }
    const element = svg.querySelector<SVGGElement>(`g.field[data-field="${want.field}"]`);
    if (element && active !== element) element.focus();
  });
  const focusSoon = (field: string, at: number) => {
    wantFocus.current = { field, until: at + FOCUS_FOLLOW_MS };
  };
  const order = useMemo(() => layout.fields.map((field) => field.name), [layout]);
  const tabStop = selected !== undefined && order.includes(selected) ? selected : order[0];
  const onKey = (event: ReactKeyboardEvent<SVGGElement>, field: string) => {
    const arrow = ['ArrowUp', 'ArrowLeft', 'ArrowDown', 'ArrowRight'].includes(event.key);
    const delta = event.key === 'ArrowUp' || event.key === 'ArrowLeft' ? -1 : 1;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(field);
    } else if (arrow && event.altKey && editable) {
      event.preventDefault();
      focusSoon(field, event.timeStamp);
      onSelect(field);
      onMove?.(field, delta);
    } else if (arrow && !event.altKey) {
      event.preventDefault();
      const next = order[order.indexOf(field) + delta];
      if (next === undefined) return;
      focusSoon(next, event.timeStamp);
      onSelect(next);
    } else if (event.key === 'Escape' && drag) {
      setDrag(undefined);
    }
  };

  const marker = drag?.moved && drag.target ? drawing.boxes.find((box) => box.field === drag.target?.field) : undefined;
  const ruler = [0, 8, 16, 24, 32, 40, 48, 56, 64];
  return (
    <figure className="struct-drawing" data-testid={testId} data-lines={drawing.lines} data-struct={struct}>
      <figcaption>
        {title}: {layout.size} B in {layout.lines} lines
        {touchedLines && (
          <span className="struct-touched" data-testid={`${testId}-touched`}>
            {' '}
            · the operation touches {touchedLines.size} of {layout.lines}
          </span>
        )}
      </figcaption>
      <svg
        ref={svgRef}
        width={drawing.width}
        height={drawing.height}
        className={editable ? 'editable' : undefined}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => setDrag(undefined)}
        onBlur={(event) => {
          // Focus gone elsewhere on the page: the drawing stops pulling it back.
          if (event.relatedTarget instanceof Element && !event.currentTarget.contains(event.relatedTarget)) wantFocus.current = undefined;
        }}
        aria-label={`${title}: struct ${struct} in ${layout.lines} cache lines`}
        role="group"
      >
        <defs>
          <pattern id={hatchId} width={6} height={6} patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <line x1={0} y1={0} x2={0} y2={6} className="hole-hatch" />
          </pattern>
        </defs>
        {ruler.map((byte) => (
          <text key={byte} x={STRUCT_GEOMETRY.gutter + byte * drawing.byteWidth} y={12} className="struct-ruler" textAnchor={byte === 0 ? 'start' : byte === 64 ? 'end' : 'middle'}>
            {byte}
          </text>
        ))}
        {Array.from({ length: drawing.lines }, (_, line) => (
          <g key={line} className={`struct-line${touchedLines?.has(line) ? ' touched' : ''}`} data-line={line}>
            <rect x={STRUCT_GEOMETRY.gutter - 1} y={drawing.lineY(line) - 1} width={drawing.width - STRUCT_GEOMETRY.gutter + 1} height={drawing.rowHeight + 2} className="line-frame" />
            {touchedLines?.has(line) && <rect x={0} y={drawing.lineY(line)} width={6} height={drawing.rowHeight} className="line-mark" />}
            <text x={STRUCT_GEOMETRY.gutter - 6} y={drawing.lineY(line) + drawing.rowHeight / 2} className="line-number">
              {line}
            </text>
          </g>
        ))}
        {drawing.holes.map((hole) => (
          <rect key={`hole-${hole.offset}`} x={hole.x} y={hole.y} width={hole.width} height={hole.height} fill={`url(#${hatchId})`} className="hole">
            <title>{`hole: ${hole.size} B of padding at offset ${hole.offset}`}</title>
          </rect>
        ))}
        {drawing.boxes.map((box, index) => {
          const value = heat?.[struct].get(box.field) ?? 0;
          const dim = highlight !== undefined && !highlight.has(box.field);
          const field = layout.fields.find((entry) => entry.name === box.field);
          const classes = ['field', dim ? 'dim' : '', highlight?.has(box.field) ? 'touched' : '', selected === box.field ? 'selected' : '', drag?.field === box.field && drag.moved ? 'dragging' : '']
            .filter(Boolean)
            .join(' ');
          // The tab stop is the field's first box (a field across a line boundary has two).
          const stop = box.field === tabStop && drawing.boxes.findIndex((entry) => entry.field === box.field) === index;
          return (
            <g
              key={`${box.field}-${box.line}`}
              className={classes}
              data-field={box.field}
              tabIndex={stop ? 0 : -1}
              role="button"
              aria-label={`${box.field}, ${field?.size ?? 0} byte${field?.size === 1 ? "" : "s"} at offset ${field?.offset ?? 0}, ${formatCount(value)} calls`}
              aria-pressed={selected === box.field}
              onPointerDown={(event) => onPointerDown(event, box.field)}
              onKeyDown={(event) => onKey(event, box.field)}
            >
              <title>{`${box.field}: ${field?.size ?? 0} B at offset ${field?.offset ?? 0} (line ${box.line}); ${formatCount(value)} calls of the operations touching it`}</title>
              <rect x={box.x + 0.5} y={box.y + 0.5} width={Math.max(1, box.width - 1)} height={box.height - 1} rx={2} fill={scale.fill(value)} className="field-box" />
              {box.label.map((text, row) => (
                <text
                  key={row}
                  x={box.x + box.width / 2}
                  y={box.y + box.height / 2 + (row - (box.label.length - 1) / 2) * box.lineHeight}
                  fill={scale.ink(value)}
                  fontSize={box.fontPx}
                  className="field-name"
                >
                  {text}
                </text>
              ))}
            </g>
          );
        })}
        {marker && drag?.target && (
          <rect
            x={(drag.target.side === 'before' ? marker.x : marker.x + marker.width) - 2}
            y={marker.y - 3}
            width={4}
            height={marker.height + 6}
            className="drop-marker"
            data-testid="drop-marker"
          />
        )}
      </svg>
    </figure>
  );
}

/** The misses of each operation: the original layout's whole run against the current run, with the change. */
function MissesTable({
  operations,
  original,
  live,
  currentLabel,
  atEnd,
  highlighted,
  onRunToEnd,
}: {
  operations: readonly string[];
  original: RunFiguresState['original'];
  live: RunFiguresState['live'];
  currentLabel: string;
  atEnd: boolean;
  highlighted: string | undefined;
  onRunToEnd: (() => void) | undefined;
}) {
  const [sort, setSort] = useState<MissSort>(DEFAULT_MISS_SORT);
  const originalMisses = original.status === 'ready' ? original.figures.cacheMisses : undefined;
  const currentMisses = live?.cacheMisses;
  // The original's figures are for its whole run; the change is shown once this run has reached its end too.
  const comparable = atEnd && originalMisses !== undefined;
  const rows = sortMissRows(missRows(operations, originalMisses, currentMisses), sort);
  const totals = missTotals(originalMisses, currentMisses);
  const liveAt = live ? formatTraceTime(simTimeNs(live.nowNs)) : undefined;
  const header = (key: MissSortKey, label: string) => {
    const active = sort.key === key;
    return (
      <th scope="col" aria-sort={active ? sort.direction : 'none'} data-column={key} className={key === 'operation' ? 'name' : 'count'}>
        <button type="button" onClick={() => setSort(nextMissSort(sort, key))} title={`Sort by ${label}`}>
          {label}
          <span className="sort-mark" aria-hidden="true">
            {active ? (sort.direction === 'ascending' ? '▲' : '▼') : ''}
          </span>
        </button>
      </th>
    );
  };
  const cells = (row: MissRow) => (
    <>
      <td className="count" data-column="calls">
        {row.calls === undefined ? '' : formatCount(row.calls)}
      </td>
      <td className="count" data-column="original">
        {row.original === undefined ? '…' : formatCount(row.original)}
      </td>
      <td className="count" data-column="current">
        {row.current === undefined ? '…' : formatCount(row.current)}
      </td>
      <td className={`count change${comparable && row.changePct !== undefined ? (row.changePct < -0.05 ? ' better' : row.changePct > 0.05 ? ' worse' : '') : ''}`} data-column="change">
        {comparable ? formatChangePct(row.changePct) : '—'}
      </td>
    </>
  );
  return (
    <div className="struct-misses">
      <h3>Cache misses per operation: the original layout against this run ({currentLabel})</h3>
      <p className="muted struct-misses-note" data-testid="misses-note">
        {original.status === 'running' && 'Running the original layout to its end in the background… '}
        {original.status === 'error' && `The original layout's run failed: ${original.message}. `}
        {original.status === 'ready' && `Original: the same scenario and seed with policy.struct_layout "original", its whole run (${formatTraceTime(simTimeNs(original.endNs))} s). `}
        {liveAt !== undefined && `Current: this run up to t = ${liveAt} s. `}
        {!atEnd && 'The change is shown once this run has reached its end. '}
        {onRunToEnd && (
          <button type="button" onClick={onRunToEnd}>
            Run to the end
          </button>
        )}
      </p>
      <table className="struct-misses-table" aria-label="Cache misses by operation">
        <thead>
          <tr>
            {header('operation', 'operation')}
            {header('calls', 'calls')}
            {header('original', 'original, whole run')}
            {header('current', `${currentLabel}, this run`)}
            {header('change', 'change')}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.operation} data-operation={row.operation} className={highlighted === row.operation ? 'highlighted' : undefined}>
              <th scope="row" className="name">
                <code>{row.operation}</code>
              </th>
              {cells(row)}
            </tr>
          ))}
        </tbody>
        <tfoot>
          {totals.map((row) => (
            <tr key={row.operation} data-row={row.operation} className={row.operation === 'total' ? 'total' : undefined}>
              <th scope="row" className="name">
                {row.operation === 'total' ? 'total' : <code>{row.operation}</code>}
                {row.operation === 'total' ? '' : ' misses'}
              </th>
              {cells(row)}
            </tr>
          ))}
        </tfoot>
      </table>
      {rows.some((row) => (row.calls ?? 0) > 0 && row.current === 0) && (
        <p className="muted" data-testid="misses-attribution">
          A line&apos;s miss counts for the first operation of a call that touches it: <code>enqueue_entity</code>, <code>dequeue_entity</code> and{' '}
          <code>entity_tick</code> run <code>update_load_avg</code> first, so when one of them shows calls and no misses, <code>update_load_avg</code> had brought in all its
          lines. Any other operation with none touched no line that was not still in the CPU&apos;s cache.
        </p>
      )}
    </div>
  );
}
