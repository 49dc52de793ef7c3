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
import type { DrawingRefs } from './ExportMenu';
import { SweepPanel } from './SweepPanel';
import type { SweepRunner } from '../engine/sweepClient';

export function App({
  store,
  controller,
  actions,
  sweeps,
  onTimelineDrawn,
}: {
  store: AppStore;
  controller: Controller;
  actions: readonly Action[];
  /** Runs the Sweep panel's sweeps in a worker of their own. */
  sweeps: SweepRunner;
  /** Told what each timeline draw painted (the end-to-end tests' hook). */
  onTimelineDrawn?: (stats: DrawStats) => void;
}) {
  const status = useAppState(store, (s) => s.status);
  // The drawings the Export menu saves, owned by their panels.
  const machineRef = useRef<SVGSVGElement>(null);
  const timelineRef = useRef<HTMLCanvasElement>(null);
  const drawings = useMemo<DrawingRefs>(() => ({ machine: machineRef, timeline: timelineRef }), []);
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
    <div className="app">
      <header>
        <h1>
          sched<span>lab</span>
        </h1>
        <p className="tagline">Watch the Linux CFS scheduler place work on CPUs.</p>
      </header>
      <Toolbar store={store} controller={controller} drawings={drawings} />
      <NoticeBanner store={store} controller={controller} />
      {status === 'starting' && <p className="muted">Starting the simulator…</p>}
      <main>
        <div className="left">
          <TopologyView store={store} svgRef={machineRef} />
          <Charts store={store} />
          <Timeline store={store} controller={controller} onDrawn={onTimelineDrawn} canvasRef={timelineRef} />
          <LockStat store={store} />
          <EventLog store={store} controller={controller} />
          <SweepPanel store={store} runner={sweeps} />
        </div>
        <aside className="right">
          <Inspector store={store} controller={controller} />
          <PolicyPanel store={store} controller={controller} />
          <LatencyTable store={store} />
          <Counters store={store} />
          <ScenarioEditor store={store} controller={controller} />
        </aside>
      </main>
    </div>
  );
}
