import { useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { EXPORT_KINDS, exportFileName, exportLabel, metricsCsv, needsPower, type ExportKind } from '../store/exports';
import { parseScenarioValue } from '../store/policy';
import { seedOf, sourceOf } from '../store/share';
import { canvasToPng, serializeSvg, svgSize, svgToPng } from '../render/export';
import { unreachable } from '../base/types';
import { downloadBlob } from './download';
import { SHARE_CONTEXT } from './shareContext';
import { useAppState } from './useStore';

/** The drawings the menu exports, owned by their panels. */
export interface DrawingRefs {
  readonly machine: RefObject<SVGSVGElement | null>;
  readonly timeline: RefObject<HTMLCanvasElement | null>;
  /** The timeline's current view drawn again as an SVG document (all lanes), set by the timeline. */
  readonly timelineSvg: RefObject<(() => string) | null>;
  /** The Frequency chart, while the power model runs. */
  readonly frequency: RefObject<SVGSVGElement | null>;
}

type Progress = { readonly kind: 'idle' } | { readonly kind: 'working'; readonly what: string } | { readonly kind: 'failed'; readonly message: string };

/**
 * The `Export` menu: the trace as ftrace text (with or without the model's
 * reasons), the metrics as JSON and CSV, the timeline as PNG and the machine as SVG
 * and PNG, each downloaded under a name with the scenario and seed.
 */
export function ExportMenu({ store, controller, drawings }: { store: AppStore; controller: Controller; drawings: DrawingRefs }) {
  const status = useAppState(store, (s) => s.status);
  const loaded = useAppState(store, (s) => s.loaded);
  const [open, setOpen] = useState(false);
  const [progress, setProgress] = useState<Progress>({ kind: 'idle' });
  const hostRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);

  // A press outside closes the menu.
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!hostRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  // Opened, the first item takes the focus.
  useEffect(() => {
    if (open) menuRef.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
  }, [open]);

  const blobFor = async (kind: ExportKind): Promise<Blob> => {
    switch (kind) {
      case 'trace':
      case 'trace-reasons':
        return new Blob([...(await controller.ftraceText(kind === 'trace-reasons'))], { type: 'text/plain' });
      case 'trace-perfetto':
        return new Blob([await controller.perfettoJson()], { type: 'application/json' });
      case 'metrics-json': {
        const summary = await controller.summaryJson();
        return new Blob([JSON.stringify(JSON.parse(summary), null, 2) + '\n'], { type: 'application/json' });
      }
      case 'metrics-csv': {
        const summary = parseScenarioValue(await controller.summaryJson());
        if (summary === undefined) throw new Error('the engine gave metrics that are not JSON');
        return new Blob([metricsCsv(summary)], { type: 'text/csv' });
      }
      case 'timeline-svg': {
        const draw = drawings.timelineSvg.current;
        if (!draw) throw new Error('the timeline has not been drawn yet');
        return new Blob([draw()], { type: 'image/svg+xml' });
      }
      case 'timeline-png': {
        const canvas = drawings.timeline.current;
        if (!canvas || canvas.width === 0) throw new Error('the timeline has not been drawn yet');
        return canvasToPng(canvas);
      }
      case 'machine-svg':
      case 'machine-png':
      case 'frequency-svg':
      case 'frequency-png': {
        const machine = kind === 'machine-svg' || kind === 'machine-png';
        const svg = machine ? drawings.machine.current : drawings.frequency.current;
        if (!svg) throw new Error(machine ? 'the machine has not been drawn yet' : 'the Frequency chart is not shown (the power model is off)');
        const text = serializeSvg(svg);
        if (kind === 'machine-svg' || kind === 'frequency-svg') return new Blob([text], { type: 'image/svg+xml' });
        const { width, height } = svgSize(svg);
        return svgToPng(text, width, height, Math.max(2, window.devicePixelRatio || 1));
      }
      default:
        return unreachable(kind);
    }
  };

  const exportFile = async (kind: ExportKind) => {
    setOpen(false);
    buttonRef.current?.focus();
    const state = store.get();
    const source = sourceOf(state.scenarioId, state.fileText, SHARE_CONTEXT.scenarios);
    const name = exportFileName(source.kind === 'bundled' ? source.id : 'edited', seedOf(state.fileText), kind);
    setProgress({ kind: 'working', what: exportLabel(kind) });
    try {
      downloadBlob(await blobFor(kind), name);
      setProgress({ kind: 'idle' });
    } catch (error) {
      setProgress({ kind: 'failed', message: `${exportLabel(kind)} was not exported: ${error instanceof Error ? error.message : String(error)}` });
    }
  };

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = Array.from(menuRef.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? []);
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    let next: HTMLButtonElement | undefined;
    switch (event.key) {
      case 'Escape':
        setOpen(false);
        buttonRef.current?.focus();
        break;
      case 'ArrowDown':
        next = items[(at + 1) % items.length];
        break;
      case 'ArrowUp':
        next = items[(at - 1 + items.length) % items.length];
        break;
      case 'Home':
        next = items[0];
        break;
      case 'End':
        next = items[items.length - 1];
        break;
      case ' ':
      case 'Enter':
        // The item's own activation, not the app's play/pause.
        event.stopPropagation();
        return;
      default:
        return;
    }
    // The menu's keys, not the app's (play, step, speed).
    event.preventDefault();
    event.stopPropagation();
    next?.focus();
  };

  const ready = status === 'ready' && loaded !== undefined;
  return (
    <div className="export" ref={hostRef}>
      <button
        ref={buttonRef}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls="export-menu"
        disabled={!ready || progress.kind === 'working'}
        onClick={() => setOpen((value) => !value)}
        title="Download the trace, the metrics or a drawing"
      >
        {progress.kind === 'working' ? 'Exporting…' : 'Export'}
      </button>
      {open && (
        <div id="export-menu" className="export-menu" role="menu" aria-label="Export" ref={menuRef} onKeyDown={onMenuKey}>
          {EXPORT_KINDS.filter((kind) => !needsPower(kind) || loaded?.power.enabled).map((kind) => (
            <button key={kind} type="button" role="menuitem" tabIndex={-1} onClick={() => void exportFile(kind)}>
              {exportLabel(kind)}
            </button>
          ))}
        </div>
      )}
      {progress.kind === 'failed' && (
        <div className="share-popover export-failed" role="alert">
          <span>{progress.message}</span>
          <button type="button" onClick={() => setProgress({ kind: 'idle' })}>
            Close
          </button>
        </div>
      )}
    </div>
  );
}
