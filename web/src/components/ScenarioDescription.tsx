import { useMemo } from 'react';
import type { AppStore } from '../store/app';
import { descriptionOf } from '../engine/scenarios';
import { useAppState } from './useStore';

/** The running scenario's description from its file, under the toolbar: what it models and what to look for. */
export function ScenarioDescription({ store }: { store: AppStore }) {
  const fileText = useAppState(store, (s) => s.fileText);
  const presenter = useAppState(store, (s) => s.presenter);
  const description = useMemo(() => descriptionOf(fileText), [fileText]);
  if (description === '') return null;
  // On a projector the machine comes first: the description is a click away.
  if (presenter)
    return (
      <details className="scenario-description" data-testid="scenario-description">
        <summary>About this scenario</summary>
        {description}
      </details>
    );
  return (
    <p className="scenario-description" data-testid="scenario-description">
      {description}
    </p>
  );
}
