import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { AppStore } from '../store/app';
import { descriptionOf } from '../engine/scenarios';
import { formatCount } from '../base/format';
import { textPreview } from '../base/text';
import { useAppState } from './useStore';

/**
 * How much of a long description is shown until asked for all of it. A pasted scenario's
 * description may be megabytes long: laid out whole it holds the page up for most of a
 * second (and again on every resize), where this much takes a few milliseconds.
 */
export const DESCRIPTION_PREVIEW_CHARS = 20_000;

/** The running scenario's description from its file, under the toolbar: what it models and what to look for. */
export function ScenarioDescription({ store }: { store: AppStore }) {
  const fileText = useAppState(store, (s) => s.fileText);
  const presenter = useAppState(store, (s) => s.presenter);
  const description = useMemo(() => descriptionOf(fileText), [fileText]);
  const preview = useMemo(() => textPreview(description, DESCRIPTION_PREVIEW_CHARS), [description]);
  // The description asked for whole; another description starts cut again.
  const [wholeOf, setWholeOf] = useState<string | undefined>(undefined);
  if (description === '') return null;
  const whole = !preview.cut || wholeOf === description;
  const text = whole ? description : `${preview.shown} …`;
  const cut = preview.cut && (
    <p className="scenario-description-cut" data-testid="scenario-description-cut">
      {whole ? (
        <>
          All {formatCount(preview.totalChars)} characters shown.{' '}
          <button type="button" onClick={() => setWholeOf(undefined)}>
            Show the first {formatCount(preview.shownChars)} only
          </button>
        </>
      ) : (
        <>
          Showing the first {formatCount(preview.shownChars)} of {formatCount(preview.totalChars)} characters.{' '}
          <button type="button" onClick={() => setWholeOf(description)}>
            Show all ({formatCount(preview.totalChars)} characters)
          </button>
        </>
      )}
    </p>
  );
  // On a projector the machine comes first: the description is a click away.
  if (presenter)
    return (
      <details className="scenario-description" data-testid="scenario-description">
        <summary>About this scenario</summary>
        <DescriptionText as="div" text={text} />
        {cut}
      </details>
    );
  return (
    <>
      <DescriptionText as="p" text={text} className="scenario-description" testId="scenario-description" />
      {cut}
    </>
  );
}

/**
 * The description's text in a box of at most a dozen lines that scrolls when it holds
 * more; then it can be focused and scrolled from the keyboard too.
 */
function DescriptionText({ as: Tag, text, className, testId }: { as: 'p' | 'div'; text: string; className?: string; testId?: string }) {
  const ref = useRef<HTMLParagraphElement & HTMLDivElement>(null);
  const overflows = useOverflows(ref, text);
  return (
    <Tag
      ref={ref}
      className={className ? `${className} description-text` : 'description-text'}
      data-testid={testId}
      data-overflows={overflows || undefined}
      tabIndex={overflows ? 0 : undefined}
      role={overflows ? 'region' : undefined}
      aria-label={overflows ? 'Scenario description' : undefined}
    >
      {text}
    </Tag>
  );
}

/** Whether the element's content is taller than the element (it scrolls), followed through resizes and new text. */
function useOverflows(ref: RefObject<HTMLElement | null>, text: string): boolean {
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const box = ref.current;
    if (!box) return undefined;
    // Observing starts with a report of the element's size as it is: the text just drawn.
    const observer = new ResizeObserver(() => setOverflows(box.scrollHeight > box.clientHeight + 1));
    observer.observe(box);
    return () => observer.disconnect();
  }, [ref, text]);
  return overflows;
}
