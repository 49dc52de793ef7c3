import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { useAppState } from './useStore';

const TITLES = {
  failed: 'The simulation engine stopped.',
  silent: 'The simulation engine is not answering.',
  restarted: 'The simulation engine was restarted.',
} as const;

/**
 * The engine worker's trouble, above the panels: it failed (with what the core
 * said), it has not answered for a long while, or it was just replaced by a
 * fresh one. A failed or silent engine can be restarted from here.
 */
export function EngineBanner({ store, controller, run }: { store: AppStore; controller: Controller; run?: 'B' }) {
  const trouble = useAppState(store, (s) => s.engineTrouble);
  if (!trouble) return null;
  const restart = (
    <button type="button" className="primary" onClick={() => void controller.restartEngine()}>
      Restart the engine
    </button>
  );
  return (
    <section className={`notice engine-${trouble.kind}`} role="alert" aria-label={run ? `Engine of run ${run}` : 'Engine'}>
      <div className="notice-head">
        <p className="notice-title">{run ? `Run ${run}: ${TITLES[trouble.kind].replace('The s', 'its s')}` : TITLES[trouble.kind]}</p>
        <div className="notice-actions">
          {trouble.kind !== 'restarted' && restart}
          <button type="button" onClick={() => controller.dismissEngineTrouble()}>
            {trouble.kind === 'silent' ? 'Keep waiting' : 'Dismiss'}
          </button>
        </div>
      </div>
      {trouble.kind === 'failed' && (
        <>
          <p className="notice-detail">
            What it said: <code>{trouble.message}</code>
          </p>
          <p className="notice-hint muted">
            Nothing more can be run in it. A restart starts a fresh engine and loads the scenario again from the start, with your text and Policy settings as they
            are.
          </p>
        </>
      )}
      {trouble.kind === 'silent' && (
        <p className="notice-hint muted">
          {trouble.message} It may still be working on a long request (a large export, or a long log). Keep waiting, or restart it: the scenario loads again from the
          start, with your text and Policy settings as they are.
        </p>
      )}
      {trouble.kind === 'restarted' && <p className="notice-hint muted">{trouble.message}</p>}
    </section>
  );
}
