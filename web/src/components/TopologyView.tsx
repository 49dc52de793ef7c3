import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type MouseEvent, type RefObject } from 'react';
import { SPEEDS } from '../store/app';
import { distinctLabels } from '../base/text';
import { DISTANCE_LABEL, DISTANCES, MAX_KEPT, motionSpanNs, motionView, type MotionView } from '../store/motion';
import { DISTANCE_COLOR, drawMotions } from '../render/motion';
import type { AppStore } from '../store/app';
import { useAppState } from './useStore';
import { useElementWidth, useWindowHeight } from './useElementWidth';
import { computeLayout, GROW_MAX_HEIGHT } from '../render/layout';
import { canvasCellTitle, drawMachine, type CpuHighlight, type ShardView } from '../render/topology';
import { cellAt, cellsOnCanvas, DARK_CELLS, LIGHT_CELLS } from '../render/cellsCanvas';
import { OFFLINE_FILL } from '../render/cellState';
import { groupColor, taskColors } from '../render/colors';
import { cpuList, highlightOf } from '../store/inspector';
import { glowOf, parseFrameShards, parseShardSpinners, SHARD_LOCK_CLASS } from '../store/shards';
import { parseFramePower, powerOn } from '../store/power';
import { formatNs, type PowerView } from '../render/power';
import { formatCount } from '../base/format';
import { JitterTag } from './JitterTag';

/** Nothing to draw in the SVG's moves layer (a large machine's moves are on its canvas). */
const NO_MOTIONS: MotionView = { drawn: [], more: { smt: 0, llc: 0, 'cross-llc': 0, 'cross-numa': 0 }, moreTotal: 0, truncated: false };

export function TopologyView({
  store,
  svgRef,
  run,
  onCpu,
}: {
  store: AppStore;
  svgRef: RefObject<SVGSVGElement | null>;
  /** A click on a CPU (the Inspector shows it). */
  onCpu?: (cpu: number) => void;
  /** In compare mode, which run this machine shows (`A`, `B`); its title and names say so. */
  run?: string;
}) {
  const titleId = useId();
  const loaded = useAppState(store, (s) => s.loaded);
  const frame = useAppState(store, (s) => s.frame);
  const selection = useAppState(store, (s) => s.selection);
  const inspection = useAppState(store, (s) => s.inspection);
  const contention = useAppState(store, (s) => s.shardLockContention);
  const shardContentions = useAppState(store, (s) => s.shardContentions);
  const theme = useAppState(store, (s) => s.theme);
  const cpuSelection = useAppState(store, (s) => s.cpuSelection);
  const hostRef = useRef<HTMLDivElement>(null);
  const width = useElementWidth(hostRef);

  const power = powerOn(loaded?.power);
  const presenter = useAppState(store, (s) => s.presenter);
  const windowHeight = useWindowHeight();
  // Where the drawing starts on the page (measured after each layout of the page above it).
  const [hostTop, setHostTop] = useState(0);
  useLayoutEffect(() => {
    const host = hostRef.current;
    if (host) setHostTop(Math.round(host.getBoundingClientRect().top + window.scrollY));
  }, [presenter, windowHeight, loaded]);
  // Presenter mode (a projector): the largest cells the panel allows, in more rows if
  // need be, while the whole drawing still fits on the screen below where it starts.
  const maxHeight = presenter ? Math.min(GROW_MAX_HEIGHT, Math.max(160, windowHeight - hostTop - 16)) : GROW_MAX_HEIGHT;
  const layout = useMemo(
    () => (loaded ? computeLayout(loaded.machine, width, loaded.shards, powerOn(loaded.power) !== undefined, true, presenter, maxHeight) : undefined),
    [loaded, width, presenter, maxHeight],
  );
  const colors = useMemo(() => taskColors(loaded?.tasks ?? []), [loaded]);
  const task = useMemo(() => highlightOf(selection, inspection, loaded?.tasks ?? []), [selection, inspection, loaded]);
  // A selected task's CPUs; else the CPU the inspector shows, ringed.
  const highlight = useMemo<CpuHighlight | undefined>(
    () => (task ? { allowed: new Set(task.allowed), chosen: task.chosen } : cpuSelection !== undefined ? { chosen: cpuSelection } : undefined),
    [task, cpuSelection],
  );

  const hasShards = (loaded?.shards.length ?? 0) > 0;
  const lockNote = `${SHARD_LOCK_CLASS}: ${(100 * contention).toFixed(1)} % of acquisitions waited lately, all shards together; each lane glows by its own shard's lock.`;
  const shards = useMemo<ShardView | undefined>(() => {
    if (!loaded || !frame || loaded.shards.length === 0) return undefined;
    const lanes = parseFrameShards(frame.shards, loaded.shards).map((queue) => ({ cpus: cpuList(queue.shard.cpus), pids: queue.pids }));
    return { lanes, contentions: shardContentions, lockNote, spinners: parseShardSpinners(frame.shardSpinners, loaded.shards.length) };
  }, [loaded, frame, shardContentions, lockNote]);

  const powerView = useMemo<PowerView | undefined>(() => {
    const info = powerOn(loaded?.power);
    const parsed = info && frame ? parseFramePower(frame.power, info) : undefined;
    return info && parsed ? { info, frame: parsed } : undefined;
  }, [loaded, frame]);
  const hasJitter = useMemo(() => (loaded?.tasks ?? []).some((candidate) => candidate.jitter), [loaded]);
  const motions = useAppState(store, (s) => s.motions);
  const speedIndex = useAppState(store, (s) => s.speedIndex);
  const moves = useMemo(
    () => (frame ? motionView(motions, frame.nowNs, motionSpanNs(SPEEDS[speedIndex]?.factor ?? 0.01)) : undefined),
    [motions, frame, speedIndex],
  );

  useEffect(() => {
    if (svgRef.current && layout && frame) {
      const cells = theme === 'dark' ? DARK_CELLS : LIGHT_CELLS;
      // A large machine paints its moves on the cells' canvas; a small one draws them in the SVG.
      const onCanvas = cellsOnCanvas(layout.cpus.length);
      drawMachine(svgRef.current, layout, colors, { running: frame.running, nrRunning: frame.nrRunning, queues: frame.queues, offline: frame.offline }, highlight, shards, powerView, cells, onCanvas ? moves : undefined);
      if (moves) drawMotions(svgRef.current, layout, onCanvas ? NO_MOTIONS : moves);
    }
  }, [layout, colors, frame, highlight, shards, powerView, svgRef, moves, theme]);

  /** A point of the drawing in the layout's units (the SVG is drawn 1:1). */
  const layoutPoint = (event: MouseEvent<SVGSVGElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  };

  // With the power model on, the jitter mark joins the power row (TurboSched's story); else the workloads'.
  const jitterLegend = (
    <li data-testid="jitter-legend">
      <span className="swatch jitter" /> jitter task (TurboSched)
    </li>
  );

  return (
    <section className="panel machine" aria-label={run ? `Machine ${run}` : 'Machine'} aria-describedby={titleId} data-run={run}>
      <h2 id={titleId}>
        {run && <span className="run-tag">{run}</span>}
        {loaded ? `${loaded.machine.name}: ${loaded.machine.cpus.length} ${loaded.machine.cpus.length === 1 ? 'CPU' : 'CPUs'}` : 'Machine'}
      </h2>
      {loaded && (
        // Always there (empty when every move is drawn): beside the title, or on a line
        // of its own in Compare's narrow panels, so the drawing never moves as it comes and goes.
        <p
          className="motion-more-note"
          data-testid="motion-more"
          title={
            moves && moves.moreTotal > 0
              ? `Moves in the last span that are not drawn (the newest are)${moves.truncated ? `, of the newest ${formatCount(MAX_KEPT)} moves kept` : ''}: ${DISTANCES.filter(
                  (distance) => moves.more[distance] > 0,
                )
                  .map((distance) => `${moves.more[distance]} ${DISTANCE_LABEL[distance]}`)
                  .join(', ')}`
              : undefined
          }
        >
          {moves && moves.moreTotal > 0 ? `+${formatCount(moves.moreTotal)} moves not drawn` : ''}
        </p>
      )}
      {loaded && !run && frame?.events === 0 && (
        <p className="start-hint" data-testid="start-hint">
          At time 0 nothing has run yet: press <strong>Play</strong> (space) to watch it, or <strong>Step</strong> (.) to go one scheduler event at a time.
        </p>
      )}
      {loaded && (
        <ul className="legend" aria-label="Workloads">
          {distinctLabels(loaded.workloads.map((workload) => workload.label)).map((label, index) => (
            <li key={index}>
              <span className="swatch" style={{ background: groupColor(index) }} />
              {label}
            </li>
          ))}
          <li>
            <span className="swatch idle" /> idle
          </li>
          {(frame?.offline.length ?? 0) > 0 && (
            <li data-testid="offline-legend">
              <span className="swatch" style={{ background: OFFLINE_FILL }} /> offline (hotplug): {frame?.offline.length} CPU{frame?.offline.length === 1 ? '' : 's'}
            </li>
          )}
          <li>
            <span className="swatch depth" /> waiting tasks (a step each, then growing by the log: never capped)
          </li>
          {hasShards && (
            <li data-testid="shard-legend" title={lockNote}>
              <span className="swatch lane" style={{ boxShadow: `0 0 ${(2 + 6 * glowOf(contention)).toFixed(1)}px rgba(221, 107, 32, ${(0.25 + 0.75 * glowOf(contention)).toFixed(2)})` }} />
              shard lanes: SHARED_RUNQ's queue, head (oldest) first; each glows by its own lock's contention ({SHARD_LOCK_CLASS}, all shards: {(100 * contention).toFixed(1)} % waited)
            </li>
          )}
          {hasShards && (
            <li data-testid="spin-legend">
              <span className="swatch spin" aria-hidden="true" />
              a CPU that spun on a shard&apos;s lock since the last frame (its lane names it: “spun: CPUs …”)
            </li>
          )}
          {hasJitter && !power && jitterLegend}
        </ul>
      )}
      {loaded && (
        <ul className="legend motion-legend" aria-label="Task moves" data-testid="motion-legend">
          <li className="muted">moves, fading with age:</li>
          {DISTANCES.map((distance) => (
            <li key={distance}>
              <span className="swatch line" style={{ background: DISTANCE_COLOR[distance] }} /> {DISTANCE_LABEL[distance]}
            </li>
          ))}
        </ul>
      )}
      {power && (
        <ul className="legend power-legend" aria-label="Power" data-testid="power-legend">
          {hasJitter && jitterLegend}
          <li>
            <span className="swatch core-active" /> active core
          </li>
          <li title={`exit latency ${formatNs(power.shallow.exit_latency_ns)}, target residency ${formatNs(power.shallow.target_residency_ns)}`}>
            <span className="swatch core-shallow" /> shallow idle: {power.shallow.name}
            <span className="muted">(exit {formatNs(power.shallow.exit_latency_ns)})</span>
          </li>
          <li title={`exit latency ${formatNs(power.deep.exit_latency_ns)}, target residency ${formatNs(power.deep.target_residency_ns)}`}>
            <span className="swatch core-deep" /> deep idle: {power.deep.name}
            <span className="muted">
              (exit {formatNs(power.deep.exit_latency_ns)}, after {formatNs(power.deep.target_residency_ns)} idle)
            </span>
          </li>
        </ul>
      )}
      {task && (
        <ul className="legend selected-task" aria-label="Selected task" data-testid="selected-task">
          <li>
            <span className="swatch allowed" /> CPUs pid {task.pid} <strong className="comm">{task.comm}</strong>
            {task.jitter && <JitterTag />} may use: {cpuList(task.allowed)}
          </li>
          {task.chosen !== undefined && (
            <li>
              <span className="swatch chosen" /> chosen: CPU {task.chosen}
            </li>
          )}
        </ul>
      )}
      <div ref={hostRef} className="machine-host">
        <svg
          ref={svgRef}
          onClick={(event) => {
            const cell = (event.target as Element).closest('g.cpu');
            const cpu = Number(cell?.getAttribute('data-cpu'));
            if (cell && Number.isInteger(cpu)) onCpu?.(cpu);
            else if (layout && cellsOnCanvas(layout.cpus.length)) {
              // Cells painted on the canvas: find the one under the pointer.
              const { x, y } = layoutPoint(event);
              const hit = cellAt(layout, x, y);
              if (hit) onCpu?.(hit.cpu);
            }
          }}
          onMouseMove={(event) => {
            if (!layout || !cellsOnCanvas(layout.cpus.length)) return;
            const { x, y } = layoutPoint(event);
            const title = canvasCellTitle(event.currentTarget, x, y) ?? '';
            const canvas = event.currentTarget.querySelector('canvas.cells-canvas');
            if (canvas instanceof HTMLCanvasElement && canvas.title !== title) canvas.title = title;
          }}
          // The keyboard's way to a CPU's runqueue: focus the drawing, then the arrows
          // (or Home and End) choose the CPU the inspector shows.
          tabIndex={onCpu ? 0 : undefined}
          onKeyDown={(event) => {
            const n = layout?.cpus.length ?? 0;
            if (!onCpu || n === 0) return;
            const now = cpuSelection ?? -1;
            const moves: Record<string, number> = { ArrowRight: (now + 1) % n, ArrowDown: (now + 1) % n, ArrowLeft: (now - 1 + n) % n, ArrowUp: (now - 1 + n) % n, Home: 0, End: n - 1 };
            const next = moves[event.key];
            if (next === undefined) return;
            event.preventDefault();
            event.stopPropagation();
            onCpu(next);
          }}
          role="img"
          aria-label={
            (run === undefined || run === 'A' ? 'CPUs and what they run' : `CPUs and what they run, run ${run}`) +
            (onCpu ? '; arrow keys choose a CPU for the inspector' : '')
          }
          data-testid={run === undefined || run === 'A' ? 'machine' : `machine-${run.toLowerCase()}`}
        />
      </div>
    </section>
  );
}

