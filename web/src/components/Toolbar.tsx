import { useEffect, useMemo, useState } from 'react';
import type { AppStore, CatchUp } from '../store/app';
import { SPEEDS } from '../store/app';
import { DECISION_KINDS, type Controller, type DecisionKind } from '../store/controller';
import { bundledScenarios, SERIES, titleOf } from '../engine/scenarios';
import { useAppState } from './useStore';
import { formatCount, formatTraceTime } from '../base/format';
import { simTimeNs } from '../base/types';
import { ShareButton } from './ShareButton';
import { ExportMenu, type DrawingRefs } from './ExportMenu';
import { CompareButton } from './Compare';
import type { CompareSession } from '../store/compareSession';


/**
 * A picker chosen with the mouse gives the keys back to the page at once (Space
 * plays, `.` steps); one browsed with the arrow keys keeps the focus, so the next
 * arrow goes on through the list.
 */
const pickedByKeyboard = new WeakSet<HTMLSelectElement>();
const pickerKeys = {
  onKeyDown: (event: { currentTarget: HTMLSelectElement }) => pickedByKeyboard.add(event.currentTarget),
  onPointerDown: (event: { currentTarget: HTMLSelectElement }) => pickedByKeyboard.delete(event.currentTarget),
};
function giveKeysBack(select: HTMLSelectElement): void {
  if (!pickedByKeyboard.has(select)) select.blur();
}
export function Toolbar({
  store,
  controller,
  drawings,
  compare,
}: {
  store: AppStore;
  controller: Controller;
  drawings: DrawingRefs;
  compare: CompareSession;
}) {
  const scenarioId = useAppState(store, (s) => s.scenarioId);
  const shownScenario = bundledScenarios.find((scenario) => scenario.id === scenarioId);
  const fileText = useAppState(store, (s) => s.fileText);
  // Parsed once per applied text, not on each frame's render.
  const customTitle = useMemo(() => (scenarioId === 'custom' ? editedTitle(fileText) : undefined), [scenarioId, fileText]);
  const playing = useAppState(store, (s) => s.playing);
  const speedIndex = useAppState(store, (s) => s.speedIndex);
  const status = useAppState(store, (s) => s.status);
  const frame = useAppState(store, (s) => s.frame);
  const loaded = useAppState(store, (s) => s.loaded);
  const finishedAtNs = useAppState(store, (s) => s.finishedAtNs);
  const catchingUp = useAppState(store, (s) => s.catchingUp);
  // A failed engine runs nothing more until it is restarted (the banner above the panels).
  const engineFailed = useAppState(store, (s) => s.engineTrouble?.kind === 'failed');
  const canRun = status === 'ready' && !frame?.finished && catchingUp === undefined && !engineFailed;
  const nextKind = useAppState(store, (s) => s.nextDecision);
  const presenter = useAppState(store, (s) => s.presenter);
  const theme = useAppState(store, (s) => s.theme);
  const setNextKind = (kind: DecisionKind) => store.set({ nextDecision: kind });

  return (
    <div className="toolbar" role="toolbar" aria-label="Simulation controls">
      <label className="field scenario-field">
        <span>Scenario</span>
        <select
          {...pickerKeys}
          aria-label="Scenario"
          value={scenarioId}
          // The whole name and title on hover: the closed picker may cut the title.
          title={shownScenario ? `${shownScenario.id}: ${shownScenario.title}` : customTitle}
          onChange={(event) => {
            const chosen = bundledScenarios.find((scenario) => scenario.id === event.target.value);
            if (chosen) void controller.load(chosen.id, chosen.text);
            giveKeysBack(event.target);
          }}
        >
          {scenarioId === 'custom' && <option value="custom">Edited scenario</option>}
          {scenarioId === 'log' && <option value="log">Log: {loaded?.log?.name ?? 'replayed'}</option>}
          {[...SERIES.map((series) => series.name), 'Other'].map((series) => {
            const members = bundledScenarios.filter((scenario) => scenario.series === series);
            return (
              members.length > 0 && (
                <optgroup key={series} label={series}>
                  {members.map((scenario) => (
                    <option key={scenario.id} value={scenario.id} title={scenario.description}>
                      {scenario.id}: {scenario.title}
                    </option>
                  ))}
                </optgroup>
              )
            );
          })}
        </select>
      </label>
      <div className="buttons">
        {playing ? (
          <button type="button" className="primary" onClick={() => controller.pause()} title="Pause (space)">
            Pause
          </button>
        ) : (
          <button type="button" className="primary" onClick={() => controller.play()} disabled={!canRun} title="Play (space)">
            Play
          </button>
        )}
        <button type="button" onClick={() => void controller.step()} disabled={!canRun} title="Step to the next scheduler event in the log (.)">
          Step
        </button>
        <button
          type="button"
          onClick={() => void controller.restart()}
          disabled={status === 'loading' || status === 'starting' || catchingUp !== undefined}
          title="Start the scenario again from time 0, with the Policy panel's settings (r)"
        >
          Reset
        </button>
        <span className="step-next">
          <button type="button" onClick={() => void controller.stepToNext(nextKind)} disabled={!canRun} title="Run on to the next decision of this kind and explain it (n)">
            Next decision
          </button>
          <label className="field">
            <span>of kind</span>
            <select
              {...pickerKeys}
              aria-label="Decision kind"
              value={nextKind}
              onChange={(event) => {
                setNextKind(event.target.value as DecisionKind);
                giveKeysBack(event.target);
              }}
            >
              {DECISION_KINDS.map((entry) => (
                <option key={entry.kind} value={entry.kind}>
                  {entry.label}
                </option>
              ))}
            </select>
          </label>
        </span>
        <label className="field">
          <span>Speed</span>
          <select
            {...pickerKeys}
            aria-label="Speed"
            value={speedIndex}
            onChange={(event) => {
              controller.setSpeed(Number(event.target.value));
              giveKeysBack(event.target);
            }}
          >
            {SPEEDS.map((speed, index) => (
              <option key={speed.label} value={index}>
                {speed.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="buttons share-export">
        <button
          type="button"
          aria-pressed={presenter}
          onClick={() => store.set({ presenter: !presenter })}
          title="Large type and high contrast for a projector, with fewer panels (p)"
        >
          Presenter mode
        </button>
        <button
          type="button"
          aria-pressed={theme === 'dark'}
          onClick={() => store.set({ theme: theme === 'dark' ? 'light' : 'dark' })}
          title="Light or dark colours (t)"
        >
          Dark theme
        </button>
        <CompareButton store={store} session={compare} />
        <ShareButton store={store} compare={compare} />
        <ExportMenu store={store} controller={controller} drawings={drawings} />
      </div>
      {/* A status region named for what it shows; not announced on every frame. */}
      <div className="clock" role="status" aria-label="Simulated time" aria-live="off">
        <span data-testid="sim-time">
          t = {frame ? formatTraceTime(frame.nowNs) : '0.000000'} s
          {loaded ? ` / ${formatTraceTime(loaded.endNs)} s` : ''}
        </span>
        <span className="clock-events">
          <span
            data-testid="event-count"
            title="Events the simulator has handled: wakeups, ends of runs and switches, ticks, timers. Some leave no trace record, so this runs ahead of the event log's numbers; Step runs on to the next one that does."
          >
            event {frame ? formatCount(frame.events) : 0}
          </span>
          {frame?.finished && (
            <span className="done" title={finishedAtNs !== undefined ? 'Every task exited before the scenario\'s end: the playhead\'s slider spans the run' : undefined}>
              {finishedAtNs !== undefined ? `finished: every task exited at ${formatTraceTime(finishedAtNs)} s` : 'finished'}
            </span>
          )}
          <CatchUpNote store={store} />
          {playing && frame?.behind && (
            <span className="behind" title="Each animation frame gives the simulator a few milliseconds; this run needs more for the chosen speed">
              slower than {SPEEDS[speedIndex]?.label}
            </span>
          )}
        </span>
      </div>
    </div>
  );
}

/** How long a catch-up runs before it is shown: a short one would only flash. */
const CATCH_UP_SHOWN_AFTER_MS = 250;

/**
 * Says that the run is being carried on to a time without playing (after a policy
 * change, from time 0 back to the playhead's; or a seek), and how far it is.
 */
export function CatchUpNote({ store }: { store: AppStore }) {
  const catchingUp = useAppState(store, (s) => s.catchingUp);
  const nowNs = useAppState(store, (s) => s.frame?.nowNs ?? 0);
  // The catch-up whose delay has passed: shown while it is still the current one.
  const [shownFor, setShownFor] = useState<CatchUp | undefined>(undefined);
  useEffect(() => {
    if (catchingUp === undefined) return undefined;
    const timer = window.setTimeout(() => setShownFor(catchingUp), CATCH_UP_SHOWN_AFTER_MS);
    return () => window.clearTimeout(timer);
  }, [catchingUp]);
  if (catchingUp === undefined || shownFor !== catchingUp) return null;
  const share = catchingUp.toNs > 0 ? Math.min(100, Math.floor((100 * nowNs) / catchingUp.toNs)) : 100;
  const what = catchingUp.why === 'policy' ? 'Re-running with the new setting' : 'Running';
  return (
    <span className="catching-up" role="status" data-testid="catching-up">
      {what} to t = {formatTraceTime(simTimeNs(catchingUp.toNs))} s: {share} %
    </span>
  );
}

/** The hover title of an edited scenario: its own title, when its text gives one. */
export function editedTitle(text: string): string {
  const title = titleOf(text);
  return title.trim() !== '' ? `Edited scenario: ${title}` : 'Edited scenario';
}
