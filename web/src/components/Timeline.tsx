import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import type { AppStore } from '../store/app';
import { SPEEDS } from '../store/app';
import type { Controller } from '../store/controller';
import { brushView, followView, keyZoomAnchor, panView, timeAtX, visibleRange, zoomView, type TimelineView } from '../store/timeline';
import { AXIS_PX, BUSY_FILL, DARK_PALETTE, drawTimeline, hitTest, LIGHT_PALETTE, PRESENTER_TYPE_PX, timelineGeometry, TYPE_PX, type DrawStats } from '../render/timeline';
import { taskColors } from '../render/colors';
import { hidpiContext } from '../render/hidpi';
import { asContext, SvgRecorder } from '../render/svgContext';
import { formatCount, formatDuration, formatTraceTime } from '../base/format';
import { simTimeNs } from '../base/types';
import { useAppState } from './useStore';
import { useElementWidth } from './useElementWidth';

/** Wheel and keyboard zoom step. */
const ZOOM_STEP = 1.25;
/** Arrow keys pan by this share of the window. */
const PAN_SHARE = 0.2;
/** A press that moves less than this is a click, not a drag. */
const DRAG_PX = 4;
/** Windows Escape can go back to (the views before each brush), most recent last. */
const BACK_LIMIT = 20;
/** The tooltips over the time axis and over the lanes. */
const AXIS_TITLE = 'Time axis: click to move the playhead here, drag to zoom to a window (Esc goes back)';
const LANES_TITLE = 'Click a run to select its task, drag to pan, wheel to zoom; drag along the time axis to zoom to a window';

/**
 * A time axis shared by several timelines (compare mode): one view, one playhead
 * (the main run's clock) and one speed, so the runs line up under each other.
 */
export interface SharedAxis {
  readonly view: TimelineView;
  readonly setView: (view: TimelineView) => void;
  readonly nowNs: number;
  readonly speedFactor: number;
}

/**
 * A press on the plot: `pan` drags the lanes; `brush` selects a window along the
 * time axis (`fromNs` where it started) and, without a drag, is a click that moves
 * the playhead.
 */
type Press = { readonly kind: 'pan'; readonly x: number; readonly view: TimelineView; moved: boolean } | { readonly kind: 'brush'; readonly x: number; readonly fromNs: number; moved: boolean };

/**
 * The per-CPU timeline (region "Timeline"): each CPU's task runs over time on a
 * canvas, with a hatched band where tasks wait on a CPU's runqueue, following the
 * playhead unless the user zooms, pans or brushes a window on the time axis
 * (Escape goes back). Clicking a run selects its `sched_switch` record and task,
 * as the event log does. Drawing happens at most once per animation frame,
 * whatever changed meanwhile.
 */
export function Timeline({
  store,
  controller,
  onDrawn,
  canvasRef,
  run,
  axis,
  svgExportRef,
}: {
  store: AppStore;
  controller: Controller;
  onDrawn?: (stats: DrawStats) => void;
  /** In compare mode, which run this timeline shows (`A`, `B`): its region is "Timeline A". */
  run?: string;
  /** In compare mode, the time axis the timelines share. */
  axis?: SharedAxis;
  /** The canvas, shared with the Export menu. */
  canvasRef: RefObject<HTMLCanvasElement | null>;
  /** Set to a function drawing the current view as an SVG document, every lane (the Export menu's). */
  svgExportRef?: RefObject<(() => string) | null>;
}) {
  const loaded = useAppState(store, (s) => s.loaded);
  const frame = useAppState(store, (s) => s.frame);
  const slices = useAppState(store, (s) => s.slices);
  const speedIndex = useAppState(store, (s) => s.speedIndex);
  const selectedPid = useAppState(store, (s) => s.selection?.pid);
  const theme = useAppState(store, (s) => s.theme);
  const palette = theme === 'dark' ? DARK_PALETTE : LIGHT_PALETTE;
  // The view belongs to one run: a new run starts followed.
  const ownView = useAppState(store, (s) => s.timelineView);
  const setOwnView = useCallback((next: TimelineView) => controller.setTimelineView(next), [controller]);
  const view = axis?.view ?? ownView;
  const sharedSetView = axis?.setView;
  const setView = useMemo(() => sharedSetView ?? setOwnView, [sharedSetView, setOwnView]);
  const [scrollTop, setScrollTop] = useState(0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const width = useElementWidth(scrollRef);
  const drag = useRef<Press | undefined>(undefined);
  /** The window being brushed, while the press is a drag along the axis. */
  const [brush, setBrush] = useState<{ fromNs: number; toNs: number } | undefined>(undefined);
  /** The views before each brush, so Escape can go back. */
  const back = useRef<TimelineView[]>([]);
  const [overAxis, setOverAxis] = useState(false);

  const nCpus = loaded?.machine.cpus.length ?? 0;
  // Presenter mode writes the lanes' labels and the axis larger, as it does the page's text.
  const presenter = useAppState(store, (s) => s.presenter);
  const geometry = useMemo(() => timelineGeometry(width, nCpus, presenter ? PRESENTER_TYPE_PX : TYPE_PX), [width, nCpus, presenter]);
  const colors = useMemo(() => taskColors(loaded?.tasks ?? []), [loaded]);
  const comms = useMemo(() => new Map((loaded?.tasks ?? []).map((task) => [task.pid, task.comm])), [loaded]);
  const speedFactor = axis?.speedFactor ?? SPEEDS[speedIndex]?.factor ?? 0.01;
  const nowNs = axis?.nowNs ?? frame?.nowNs ?? 0;
  // The run's length: the followed window is never longer.
  // A run whose tasks have all ended stops before its scenario's end: its own end then.
  const runNs = frame?.finished ? frame.nowNs : loaded?.endNs;
  const { t0, t1 } = visibleRange(view, nowNs, speedFactor, runNs);

  // A new run starts from the top lane (the scroll event updates `scrollTop`).
  useEffect(() => {
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
  }, [slices]);

  // One draw per animation frame: the latest inputs are kept, a frame is asked for once.
  const latest = useRef<(() => void) | undefined>(undefined);
  const pending = useRef<number | undefined>(undefined);
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !slices || !frame) return;
    latest.current = () => {
      const ctx = hidpiContext(canvas, geometry.width, geometry.viewHeight);
      if (!ctx) return;
      const stats = drawTimeline(ctx, {
        geometry,
        scrollTop,
        t0,
        t1,
        nowNs: simTimeNs(nowNs),
        slices,
        colors,
        comm: (pid) => comms.get(pid),
        selectedPid,
        palette,
        brush,
      });
      onDrawn?.(stats);
    };
    pending.current ??= requestAnimationFrame(() => {
      pending.current = undefined;
      latest.current?.();
    });
  }, [geometry, scrollTop, t0, t1, frame, nowNs, slices, colors, comms, selectedPid, palette, brush, onDrawn, canvasRef]);
  useEffect(
    () => () => {
      if (pending.current !== undefined) cancelAnimationFrame(pending.current);
    },
    [],
  );

  // The Export menu's SVG: the same drawing code into a recorder, every lane, the view on screen.
  useEffect(() => {
    if (!svgExportRef || !slices || !frame) return;
    svgExportRef.current = () => {
      const full = { ...geometry, viewHeight: geometry.contentHeight };
      const recorder = new SvgRecorder(full.width, full.contentHeight);
      drawTimeline(asContext(recorder), { geometry: full, scrollTop: 0, t0, t1, nowNs: simTimeNs(nowNs), slices, colors, comm: (pid) => comms.get(pid), selectedPid, palette });
      return recorder.toSvg();
    };
  }, [svgExportRef, geometry, t0, t1, nowNs, frame, slices, colors, comms, selectedPid, palette]);

  // The wheel zooms around the pointer (a non-passive listener, so the page does not scroll).
  const wheelState = useRef({ view, nowNs, speedFactor, geometry, runNs });
  useEffect(() => {
    wheelState.current = { view, nowNs, speedFactor, geometry, runNs };
  });
  useEffect(() => {
    const host = scrollRef.current;
    if (!host) return;
    const onWheel = (event: WheelEvent) => {
      if (event.shiftKey || event.ctrlKey) {
        // Shift+wheel scrolls the lanes instead.
        if (event.shiftKey) {
          event.preventDefault();
          host.scrollTop += event.deltaY || event.deltaX;
        }
        return;
      }
      event.preventDefault();
      const { view: current, nowNs: now, speedFactor: factor, geometry: shape, runNs: length } = wheelState.current;
      const x = event.clientX - host.getBoundingClientRect().left;
      const anchor = Math.min(1, Math.max(0, (x - shape.plotLeft) / shape.plotWidth));
      setView(zoomView(current, now, factor, event.deltaY < 0 ? 1 / ZOOM_STEP : ZOOM_STEP, anchor, length));
    };
    host.addEventListener('wheel', onWheel, { passive: false });
    return () => host.removeEventListener('wheel', onWheel);
  }, [setView]);

  const pointInCanvas = (event: PointerEvent<HTMLElement>) => {
    const rect = canvasRef.current?.getBoundingClientRect();
    return rect ? { x: event.clientX - rect.left, y: event.clientY - rect.top } : undefined;
  };

  /** Zooms to a window, remembering the view it leaves so Escape can go back. */
  const zoomTo = (next: TimelineView) => {
    back.current = [...back.current.slice(1 - BACK_LIMIT), view];
    setView(next);
  };

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    const point = pointInCanvas(event);
    if (!point || point.x < geometry.plotLeft) return;
    // On the time axis a press brushes a window (or, without a drag, moves the playhead); on the lanes it pans.
    drag.current =
      point.y < AXIS_PX
        ? { kind: 'brush', x: event.clientX, fromNs: timeAtX(t0, t1, geometry.plotLeft, geometry.plotWidth, point.x), moved: false }
        : { kind: 'pan', x: event.clientX, view, moved: false };
    event.currentTarget.setPointerCapture(event.pointerId);
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    if (!start) {
      const point = pointInCanvas(event);
      const axis = point !== undefined && point.y < AXIS_PX && point.x >= geometry.plotLeft;
      if (axis !== overAxis) setOverAxis(axis);
      return;
    }
    const dx = event.clientX - start.x;
    if (!start.moved && Math.abs(dx) < DRAG_PX) return;
    start.moved = true;
    if (start.kind === 'brush') {
      const point = pointInCanvas(event);
      if (point) setBrush({ fromNs: start.fromNs, toNs: timeAtX(t0, t1, geometry.plotLeft, geometry.plotWidth, point.x) });
      return;
    }
    const { t0: from, t1: to } = visibleRange(start.view, nowNs, speedFactor, runNs);
    setView(panView(start.view, nowNs, speedFactor, (-dx * (to - from)) / geometry.plotWidth, runNs));
  };
  const onPointerUp = (event: PointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    drag.current = undefined;
    setBrush(undefined);
    if (!start || !slices) return;
    const point = pointInCanvas(event);
    if (start.kind === 'brush') {
      if (!start.moved) {
        // A click on the time axis moves the playhead there.
        if (point) void controller.scrubTo(timeAtX(t0, t1, geometry.plotLeft, geometry.plotWidth, point.x));
      } else if (point) {
        zoomTo(brushView(start.fromNs, timeAtX(t0, t1, geometry.plotLeft, geometry.plotWidth, point.x)));
      }
      return;
    }
    if (start.moved || !point) return;
    const hit = hitTest(geometry, scrollTop, t0, t1, point.x, point.y);
    const slice = hit ? slices.sliceAt(hit.cpu, hit.timeNs) : undefined;
    if (hit && slice) void controller.inspectSwitch(hit.cpu, slice.start);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    let next: TimelineView | undefined;
    const span = t1 - t0;
    // Keyboard zoom keeps the playhead where it is (the right edge while following).
    const anchor = keyZoomAnchor(view, t0, t1, nowNs);
    switch (event.key) {
      case '+':
      case '=':
        next = zoomView(view, nowNs, speedFactor, 1 / ZOOM_STEP, anchor, runNs);
        break;
      case '-':
      case '_':
        next = zoomView(view, nowNs, speedFactor, ZOOM_STEP, anchor, runNs);
        break;
      case 'Escape': {
        // Cancel a brush in progress; else back to the window before the last brush; else follow.
        if (drag.current?.kind === 'brush') {
          drag.current = undefined;
          setBrush(undefined);
          event.preventDefault();
          event.stopPropagation();
          return;
        }
        const previous = back.current[back.current.length - 1];
        if (previous === undefined && view.follow) return;
        back.current = back.current.slice(0, -1);
        next = previous ?? followView();
        break;
      }
      case 'ArrowLeft':
        next = panView(view, nowNs, speedFactor, -span * PAN_SHARE, runNs);
        break;
      case 'ArrowRight':
        next = panView(view, nowNs, speedFactor, span * PAN_SHARE, runNs);
        break;
      default:
        return;
    }
    // The timeline's keys, not the app's (speed, step).
    event.preventDefault();
    event.stopPropagation();
    setView(next);
  };

  const onScroll = useCallback(() => setScrollTop(scrollRef.current?.scrollTop ?? 0), []);
  const truncated = frame?.traceKeptUntilNs;

  return (
    <section className="panel timeline" aria-label={run ? `Timeline ${run}` : 'Timeline'} data-run={run}>
      <div className="timeline-head">
        <h2>
          {run && <span className="run-tag">{run}</span>}
          Timeline
        </h2>
        <span className="timeline-window" data-testid={run === "B" ? "timeline-window-b" : "timeline-window"}>
          {formatTraceTime(simTimeNs(t0))} s to {formatTraceTime(simTimeNs(t1))} s ({formatDuration(t1 - t0)} shown)
        </span>
        <button
          type="button"
          aria-pressed={view.follow}
          onClick={() => {
            back.current = [];
            setView(followView());
          }}
          title="Follow the playhead (resets the zoom)"
        >
          Follow
        </button>
      </div>
      <ul className="legend timeline-legend">
        <li>
          <span className="swatch" style={{ background: BUSY_FILL }} /> several runs shorter than a pixel (zoom in)
        </li>
        <li>
          <span className="swatch playhead" /> now
        </li>
        <li className="timeline-wait-key">
          <span className="swatch waiting w1" />
          <span className="swatch waiting w2" />
          <span className="swatch waiting w3" /> 1, 2, 3+ tasks waiting on the CPU&apos;s runqueue (a pixel&apos;s average where they change faster)
        </li>
        <li className="timeline-keys">
          Wheel or +/− zoom, drag or ←/→ pan, drag along the time axis to zoom to a window (Esc goes back), click a run to select its task, click the time axis to move the
          playhead
        </li>
        {geometry.contentHeight > geometry.viewHeight && (
          <li className="timeline-keys">
            <strong data-testid="timeline-scroll-hint">
              {Math.floor((geometry.viewHeight - AXIS_PX) / geometry.laneHeight)} of {nCpus} CPUs fit: Shift+wheel or the scroll bar shows the others.
            </strong>
          </li>
        )}
      </ul>
      {truncated !== undefined && (
        <p className="timeline-truncated" role="status">
          The trace store is full: its memory holds the first {formatCount(frame?.traceTotal ?? 0)} records, so the timeline covers 0.000000 s to{' '}
          {formatTraceTime(truncated)} s only; later switches are not stored (shaded).
        </p>
      )}
      <div
        ref={scrollRef}
        className="timeline-scroll"
        tabIndex={0}
        role="group"
        aria-label={`CPU lanes: ${nCpus} CPUs; +/- zoom, arrows pan, Escape goes back from a zoomed window`}
        title={overAxis ? AXIS_TITLE : LANES_TITLE}
        data-brushing={brush ? 'true' : undefined}
        style={{ height: geometry.viewHeight, cursor: overAxis || brush ? 'col-resize' : undefined }}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => {
          drag.current = undefined;
          setBrush(undefined);
        }}
        onPointerLeave={() => setOverAxis(false)}
      >
        <canvas
          ref={canvasRef}
          className="timeline-canvas"
          style={{ width: geometry.width, height: geometry.viewHeight }}
          role="img"
          aria-label={`Task runs on ${nCpus} CPUs from ${formatTraceTime(simTimeNs(t0))} s to ${formatTraceTime(simTimeNs(t1))} s`}
          data-testid={run === "B" ? "timeline-canvas-b" : "timeline-canvas"}
        />
        <div style={{ height: geometry.contentHeight - geometry.viewHeight }} aria-hidden="true" />
      </div>
    </section>
  );
}
