import { useEffect, useMemo, useRef } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { actionForKey, type Action } from '../actions/actions';
import { Toolbar } from './Toolbar';
import { TopologyView } from './TopologyView';
import { LatencyTable } from './LatencyTable';
import { Counters } from './Counters';
import { EventLog } from './EventLog';
import { Inspector } from './Inspector';
import { ScenarioEditor } from './ScenarioEditor';
import { PolicyPanel } from './PolicyPanel';
import { LockStat } from './LockStat';
import { Timeline } from './Timeline';
import { Charts } from './Charts';
import type { DrawStats } from '../render/timeline';
import { useAppState } from './useStore';
import { NoticeBanner } from './NoticeBanner';
import { EngineBanner } from './EngineBanner';
import { ScenarioDescription } from './ScenarioDescription';
import { ShortcutsDialog } from './ShortcutsDialog';
import { Scrubber } from './Scrubber';
import type { DrawingRefs } from './ExportMenu';
import { SweepPanel } from './SweepPanel';
import { ReplayPanel } from './ReplayPanel';
import type { SweepRunner } from '../engine/sweepClient';
import type { CompareSession } from '../store/compareSession';
import { ComparisonPanel, SideSwitch, useCompare } from './Compare';
import { SPEEDS } from '../store/app';
import type { RunFigures } from '../store/runFigures';
import { StructLayoutLab } from './StructLayoutLab';
import { CgroupTree } from './CgroupTree';

export function App({
  store,
  controller,
  actions,
  sweeps,
  compare,
  figures,
  onTimelineDrawn,
}: {
  store: AppStore;
  controller: Controller;
  actions: readonly Action[];
  /** Runs the Sweep panel's sweeps in a worker of their own. */
  sweeps: SweepRunner;
  /** Compare mode: run B and how it follows run A. */
  compare: CompareSession;
  /** The run summaries' figures behind the Struct layout lab and the Cgroup tree. */
  figures: RunFigures;
  /** Told what each timeline draw painted (the end-to-end tests' hook). */
  onTimelineDrawn?: (stats: DrawStats) => void;
}) {
  const status = useAppState(store, (s) => s.status);
  const presenter = useAppState(store, (s) => s.presenter);
  const comparing = useCompare(compare, (s) => s.on);
  const editing = useCompare(compare, (s) => s.editing);
  const side = comparing ? compare.side() : undefined;
  const machineBRef = useRef<SVGSVGElement>(null);
  // The drawings the Export menu saves, owned by their panels.
  const machineRef = useRef<SVGSVGElement>(null);
  const timelineRef = useRef<HTMLCanvasElement>(null);
  const timelineSvgRef = useRef<(() => string) | null>(null);
  const frequencyRef = useRef<SVGSVGElement>(null);
  const drawings = useMemo<DrawingRefs>(() => ({ machine: machineRef, timeline: timelineRef, timelineSvg: timelineSvgRef, frequency: frequencyRef }), []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = actionForKey(actions, event);
      if (action) {
        event.preventDefault();
        action.perform();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [actions]);

  return (
    <div className={presenter ? 'app presenter' : 'app'}>
      <header>
        <h1>
          sched<span>lab</span>
        </h1>
        <p className="tagline">Watch the Linux CFS scheduler place work on CPUs.</p>
      </header>
      <Toolbar store={store} controller={controller} drawings={drawings} compare={compare} />
      <Scrubber store={store} controller={controller} />
      <ScenarioDescription store={store} />
      <ShortcutsDialog store={store} actions={actions} />
      <EngineBanner store={store} controller={controller} />
      {side && <EngineBanner store={side.store} controller={side.controller} run="B" />}
      <NoticeBanner store={store} controller={controller} />
      {status === 'starting' && <p className="muted">Starting the simulator…</p>}
      <main>
        <div className="left">
          {side ? (
            <>
              <div className="machines-ab">
                <TopologyView store={store} svgRef={machineRef} run="A" onCpu={controller.selectCpu} />
                <TopologyView store={side.store} svgRef={machineBRef} run="B" />
              </div>
              <CompareTimelines store={store} controller={controller} side={side} canvasRef={timelineRef} svgExportRef={timelineSvgRef} onDrawn={onTimelineDrawn} />
              <ComparisonPanel store={store} session={compare} storeB={side.store} />
              <Charts store={store} svgRef={frequencyRef} run="A" />
            </>
          ) : (
            <>
              <TopologyView store={store} svgRef={machineRef} onCpu={controller.selectCpu} />
              <Timeline store={store} controller={controller} onDrawn={onTimelineDrawn} canvasRef={timelineRef} svgExportRef={timelineSvgRef} />
              <Charts store={store} svgRef={frequencyRef} />
            </>
          )}
          {!presenter && (
            <>
              <StructLayoutLab store={store} controller={controller} figures={figures} />
              <CgroupTree store={store} figures={figures} />
              <LockStat store={store} />
              <EventLog store={store} controller={controller} />
              <SweepPanel store={store} runner={sweeps} />
              <ReplayPanel store={store} controller={controller} />
            </>
          )}
        </div>
        <aside className="right">
          <Inspector store={store} controller={controller} />
          {side && <SideSwitch session={compare} />}
          {side && editing === 'B' ? (
            <PolicyPanel key="B" store={side.store} controller={side.controller} run="B" />
          ) : (
            <PolicyPanel key="A" store={store} controller={controller} run={side ? 'A' : undefined} />
          )}
          <LatencyTable store={store} />
          {!presenter && (
            <>
              <Counters store={store} />
              <ScenarioEditor store={store} controller={controller} />
            </>
          )}
        </aside>
      </main>
    </div>
  );
}

/**
 * Compare mode's timelines: A above B on one time axis (one view, zoomed and
 * panned together) with A's clock as the one playhead.
 */
function CompareTimelines({
  store,
  controller,
  side,
  canvasRef,
  svgExportRef,
  onDrawn,
}: {
  store: AppStore;
  controller: Controller;
  side: { readonly store: AppStore; readonly controller: Controller };
  canvasRef: React.RefObject<HTMLCanvasElement | null>;
  svgExportRef: React.RefObject<(() => string) | null>;
  onDrawn?: (stats: DrawStats) => void;
}) {
  const nowNs = useAppState(store, (s) => s.frame?.nowNs ?? 0);
  const speedIndex = useAppState(store, (s) => s.speedIndex);
  const canvasBRef = useRef<HTMLCanvasElement>(null);
  // A's window is the shared one (a share link holds it).
  const view = useAppState(store, (s) => s.timelineView);
  const axis = { view, setView: controller.setTimelineView, nowNs, speedFactor: SPEEDS[speedIndex]?.factor ?? 0.01 };
  return (
    <div className="timelines-ab">
      <Timeline store={store} controller={controller} onDrawn={onDrawn} canvasRef={canvasRef} svgExportRef={svgExportRef} run="A" axis={axis} />
      <Timeline store={side.store} controller={side.controller} canvasRef={canvasBRef} run="B" axis={axis} />
    </div>
  );
}
