import { useState } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { formatTraceTime } from '../base/format';
import { simTimeNs } from '../base/types';
import { useAppState } from './useStore';

/** Slider steps over the run: fine enough to land within a millisecond on a 2 s run. */
const STEPS = 2000;

/**
 * The scrubber: the playhead over the whole run. Dragging shows where it will go;
 * letting go moves there, on by running, back by running again from 0 (the run
 * is deterministic, so it shows the same state as before).
 */
export function Scrubber({ store, controller }: { store: AppStore; controller: Controller }) {
  const nowNs = useAppState(store, (s) => s.frame?.nowNs ?? 0);
  // A run whose tasks all exited early spans its own length, not the idle rest of the scenario's.
  const endNs = useAppState(store, (s) => s.finishedAtNs ?? s.loaded?.endNs ?? 0);
  const status = useAppState(store, (s) => s.status);
  const [dragging, setDragging] = useState<number | undefined>();
  if (endNs <= 0) return null;
  const position = dragging ?? Math.round((nowNs / endNs) * STEPS);
  const go = (step: number) => {
    setDragging(undefined);
    void controller.scrubTo((step / STEPS) * endNs);
  };
  const shownNs = simTimeNs(Math.round((position / STEPS) * endNs));
  return (
    <div className="scrubber">
      <input
        type="range"
        aria-label="Playhead"
        aria-valuetext={`${formatTraceTime(shownNs)} s of ${formatTraceTime(simTimeNs(endNs))} s`}
        min={0}
        max={STEPS}
        value={position}
        disabled={status !== 'ready'}
        onChange={(event) => setDragging(Number(event.target.value))}
        onPointerUp={(event) => go(Number(event.currentTarget.value))}
        onKeyUp={(event) => {
          if (['ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown'].includes(event.key)) go(Number(event.currentTarget.value));
        }}
        onKeyDown={(event) => event.stopPropagation()}
      />
      <span className="scrubber-time" data-testid="scrubber-time">
        {dragging !== undefined ? `go to ${formatTraceTime(shownNs)} s` : `${formatTraceTime(simTimeNs(nowNs))} s`}
      </span>
    </div>
  );
}
