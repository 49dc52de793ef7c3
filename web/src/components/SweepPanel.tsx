import { useEffect, useMemo, useRef, useState } from 'react';
import type { AppStore } from '../store/app';
import type { SweepRunner } from '../engine/sweepClient';
import type { ScenarioProblem } from '../engine/protocol';
import type { SweepResult } from '../engine/sweepProtocol';
import { runText } from '../store/policy';
import {
  defaultXPath,
  MAX_BROWSER_RUNS,
  metricChoices,
  metricLabel,
  suggestedSweep,
  sweepCommand,
  sweepCsv,
  sweepPlot,
  changePlot,
  varyLines,
  type PlotShow,
  varyPath,
  type SweepForm,
} from '../store/sweep';
import { drawSweepPlot, seriesColor, SWEEP_PLOT } from '../render/sweepPlot';
import { serializeSvg, svgSize, svgToPng } from '../render/export';
import { useAppState } from './useStore';
import { useElementWidth } from './useElementWidth';
import { ProblemList } from './ProblemList';
import { downloadBlob } from './download';

type Status =
  | { readonly kind: 'idle' }
  | { readonly kind: 'running'; readonly done: number; readonly total: number }
  | { readonly kind: 'failed'; readonly problems: readonly ScenarioProblem[] }
  | { readonly kind: 'cancelled'; readonly done: number; readonly total: number };

/** A finished sweep and what it ran. */
interface Finished {
  readonly result: SweepResult;
  readonly paths: readonly string[];
  readonly scenario: string;
  readonly command: string;
}

/**
 * The Sweep region: any `schedlab sweep` (fields over values, over seeds) run from
 * the app in a worker of its own, with progress and Cancel, then plotted as the
 * seeds' papers plot it, with the CLI command that gives the same numbers.
 */
export function SweepPanel({ store, runner }: { store: AppStore; runner: SweepRunner }) {
  const scenarioId = useAppState(store, (s) => s.scenarioId);
  const status = useAppState(store, (s) => s.status);
  const suggestion = useMemo(() => suggestedSweep(scenarioId), [scenarioId]);
  // What the user typed; until then, the scenario's suggested sweep (a new scenario brings its own).
  // Kept in the store's drafts, so a reload keeps it.
  const typed = useAppState(store, (s) => s.drafts.sweep);
  const setTyped = (sweep: SweepForm | undefined) => store.set({ drafts: { ...store.get().drafts, sweep } });
  const form = typed ?? suggestion.form;
  const [run, setRun] = useState<Status>({ kind: 'idle' });
  const [finished, setFinished] = useState<Finished | undefined>();
  const [chosenMetric, setMetric] = useState<string | undefined>();
  const [chosenShow, setShow] = useState<PlotShow | undefined>();
  const [xPath, setXPath] = useState('');

  const edit = (patch: Partial<SweepForm>) => setTyped({ ...form, ...patch });

  const start = async () => {
    const state = store.get();
    const { lines, problems } = varyLines(form.vary);
    if (problems.length > 0) {
      setRun({ kind: 'failed', problems });
      return;
    }
    const text = runText(state.fileText, state.policyOverrides);
    if (text === undefined || state.fileText === '') {
      const message = state.loaded?.log
        ? `${state.loaded.log.name} is a real machine's log, with nothing to vary: Re-simulate it (Replay panel), then sweep its simulation`
        : 'no scenario is loaded: apply one first';
      setRun({ kind: 'failed', problems: [{ path: 'scenario', message }] });
      return;
    }
    const name = state.scenarioId === '' ? 'custom' : state.scenarioId;
    setRun({ kind: 'running', done: 0, total: 0 });
    let last = { done: 0, total: 0 };
    // Progress the worker posted before it was cancelled may still arrive: it is dropped once this run is over.
    let over = false;
    let outcome;
    try {
      outcome = await runner.run({ scenarioText: text, name, vary: lines, seeds: form.seeds, maxRuns: MAX_BROWSER_RUNS }, (progress) => {
        if (over) return;
        last = progress;
        setRun({ kind: 'running', ...progress });
      });
    } catch (error) {
      over = true;
      setRun({ kind: 'failed', problems: [{ path: 'sweep', message: `the sweep stopped: ${error instanceof Error ? error.message : String(error)}` }] });
      return;
    }
    over = true;
    if (outcome === undefined) {
      setRun({ kind: 'cancelled', ...last });
      return;
    }
    if (!outcome.ok) {
      setRun({ kind: 'failed', problems: outcome.problems.map((message) => ({ path: '', message })) });
      return;
    }
    const paths = lines.map(varyPath);
    setFinished({
      result: outcome.result,
      paths,
      scenario: name,
      command: sweepCommand(name === 'custom' ? 'scenario.json' : name, state.policyOverrides, lines, form.seeds),
    });
    setXPath(defaultXPath(outcome.result, paths));
    setRun({ kind: 'idle' });
  };

  const running = run.kind === 'running';
  return (
    <section className="panel sweep" aria-labelledby="sweep-title">
      <h2 id="sweep-title">Sweep</h2>
      <p className="muted">
        Runs this scenario, with the Policy panel&apos;s settings, over every combination of the values below and over seeds, as{' '}
        <code>schedlab sweep</code> does, in the background; each point is the median over seeds, its bar the min to the max.
      </p>
      <div className="sweep-form">
        <label className="sweep-vary">
          <span>
            Vary: one <code>PATH=V1,V2,...</code> or <code>PATH=A..B</code> per line, the first varying slowest
          </span>
          <textarea aria-label="Vary" rows={3} spellCheck={false} value={form.vary} onChange={(event) => edit({ vary: event.target.value })} />
        </label>
        <div className="sweep-side">
          <label>
            <span>Seeds</span>
            <input aria-label="Seeds" spellCheck={false} value={form.seeds} onChange={(event) => edit({ seeds: event.target.value })} />
          </label>
          <div className="sweep-buttons">
            <button type="button" onClick={() => void start()} disabled={running || status !== 'ready'}>
              Run sweep
            </button>
            <button type="button" onClick={() => runner.cancel()} disabled={!running}>
              Cancel
            </button>
            <button
              type="button"
              onClick={() => setTyped(undefined)}
              title="Put back the sweep the docs run for this scenario"
            >
              Suggested
            </button>
          </div>
        </div>
      </div>
      {running && (
        <div className="sweep-progress">
          <progress aria-label="Sweep progress" max={Math.max(1, run.total)} value={run.done} />
          <span>{run.total === 0 ? 'Planning the sweep…' : `${run.done} of ${run.total} runs`}</span>
        </div>
      )}
      {run.kind === 'cancelled' && (
        <p className="muted" role="status">
          Cancelled after {run.done} of {run.total} runs; nothing was plotted.
        </p>
      )}
      {run.kind === 'failed' && (
        <div role="alert" className="problems">
          <p>The sweep did not run:</p>
          <ProblemList problems={run.problems} />
        </div>
      )}
      {finished && (
        <SweepResultView
          finished={finished}
          metric={chosenMetric ?? suggestion.metric}
          setMetric={setMetric}
          xPath={xPath}
          setXPath={setXPath}
          show={chosenShow ?? suggestion.show}
          setShow={setShow}
        />
      )}
    </section>
  );
}

function SweepResultView({
  finished,
  metric: wanted,
  setMetric,
  xPath,
  setXPath,
  show: wantedShow,
  setShow,
}: {
  finished: Finished;
  metric: string;
  setMetric: (metric: string) => void;
  xPath: string;
  setXPath: (path: string) => void;
  show: PlotShow;
  setShow: (show: PlotShow) => void;
}) {
  const hostRef = useRef<HTMLDivElement>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const width = useElementWidth(hostRef);
  const { result, paths } = finished;
  const choices = useMemo(() => metricChoices(result), [result]);
  // A metric these runs do not report (another scenario's) falls back to the first.
  const metric = choices.includes(wanted) ? wanted : (choices[0] ?? wanted);
  const values = useMemo(() => sweepPlot(result, paths, xPath, metric), [result, paths, xPath, metric]);
  // A change needs a baseline line and another to compare with it.
  const canChange = values.series.length >= 2;
  const show = canChange ? wantedShow : 'values';
  const plot = useMemo(() => (show === 'change' ? changePlot(values, result, paths) : values), [show, values, result, paths]);
  // The change's label leaves out the unit (it is %), and the baseline (the legend names it).
  const yLabel = show === 'change' ? `${metricLabel(metric, result).replace(/ \(.*\)$/, '')} change, %` : metricLabel(metric, result);
  useEffect(() => {
    if (svgRef.current) drawSweepPlot(svgRef.current, plot, width, yLabel);
  }, [plot, width, yLabel]);

  const base = `${finished.scenario}-sweep`;
  const saveSvg = (png: boolean) => {
    const svg = svgRef.current;
    if (!svg) return;
    const text = serializeSvg(svg);
    if (!png) {
      downloadBlob(new Blob([text], { type: 'image/svg+xml' }), `${base}.svg`);
      return;
    }
    const { width: w, height: h } = svgSize(svg);
    void svgToPng(text, w, h, 2).then((blob) => downloadBlob(blob, `${base}.png`));
  };
  const description = `${yLabel} against ${plot.xPath}: ${plot.series
    .map((series) => `${series.label}: ${series.points.map((point) => `${String(point.x)} → ${point.median}`).join(', ')}`)
    .join('; ')}`;
  return (
    <figure className="chart sweep-result">
      <figcaption className="chart-head">
        <label>
          <span>Metric</span>{' '}
          <select aria-label="Metric" value={metric} onChange={(event) => setMetric(event.target.value)}>
            {choices.map((choice) => (
              <option key={choice} value={choice}>
                {metricLabel(choice, result)}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Show</span>{' '}
          <select aria-label="Show" value={show} onChange={(event) => setShow(event.target.value as PlotShow)}>
            <option value="values">the metric</option>
            <option value="change" disabled={!canChange}>
              change vs the first line (%)
            </option>
          </select>
        </label>
        {paths.length > 1 && (
          <label>
            <span>X axis</span>{' '}
            <select aria-label="X axis" value={xPath} onChange={(event) => setXPath(event.target.value)}>
              {paths.map((path) => (
                <option key={path} value={path}>
                  {path}
                </option>
              ))}
            </select>
          </label>
        )}
        <ul className="legend chart-legend" aria-label="Lines">
          {plot.series.map((series, index) => (
            <li key={series.label}>
              <span className="swatch line" style={{ background: seriesColor(index) }} />
              {series.label}
            </li>
          ))}
        </ul>
        <span className="sweep-exports">
          <button type="button" onClick={() => saveSvg(false)}>
            Plot SVG
          </button>
          <button type="button" onClick={() => saveSvg(true)}>
            Plot PNG
          </button>
          <button type="button" onClick={() => downloadBlob(new Blob([sweepCsv(result, paths, metric)], { type: 'text/csv' }), `${base}.csv`)}>
            Points CSV
          </button>
          <button
            type="button"
            onClick={() => downloadBlob(new Blob([JSON.stringify({ points: result.points, seeds: result.seeds }, null, 2) + '\n'], { type: 'application/json' }), `${base}.json`)}
          >
            Points JSON
          </button>
        </span>
      </figcaption>
      <div ref={hostRef} className="chart-host">
        <svg ref={svgRef} role="img" aria-label={description} data-testid="sweep-plot" height={SWEEP_PLOT.height} />
      </div>
      <p className="muted sweep-command">
        {result.points.length} {result.points.length === 1 ? 'point' : 'points'} × {result.seeds.length} {result.seeds.length === 1 ? 'seed' : 'seeds'}. The same sweep on the command line: <code>{finished.command}</code>
      </p>
    </figure>
  );
}
