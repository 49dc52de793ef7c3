import { useEffect, useRef, useState } from 'react';
import type { AppStore } from '../store/app';
import { encodeShareHash, sessionOf } from '../store/share';
import { useAppState } from './useStore';
import { SHARE_CONTEXT } from './shareContext';
import type { CompareSession } from '../store/compareSession';

/** How long "Link copied" stays up. */
const COPIED_MS = 6_000;

/** Chromium opens no address longer than 2 MiB (and other browsers less): a longer link is refused here. */
export const MAX_LINK_CHARS = 2_000_000;

type ShareState =
  | { readonly kind: 'closed' }
  | { readonly kind: 'too-long'; readonly chars: number }
  | { readonly kind: 'copied'; readonly url: string }
  | { readonly kind: 'manual'; readonly url: string; readonly why: string };

/**
 * The `Share link` button: a URL that reopens this scenario (by name, or its text
 * compressed), its Policy overrides, seed, speed and playhead, copied to the
 * clipboard; where the clipboard is not available, shown in a field to copy by hand.
 */
export function ShareButton({ store, compare }: { store: AppStore; compare?: CompareSession }) {
  const fileText = useAppState(store, (s) => s.fileText);
  const [share, setShare] = useState<ShareState>({ kind: 'closed' });
  const fieldRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (share.kind === 'manual') fieldRef.current?.select();
    if (share.kind !== 'copied') return;
    const timer = setTimeout(() => setShare({ kind: 'closed' }), COPIED_MS);
    return () => clearTimeout(timer);
  }, [share]);

  const makeLink = async () => {
    const found = sessionOf(store.get(), SHARE_CONTEXT);
    if (!found) return;
    // In compare mode the link holds run B's settings too.
    const side = compare?.state.get().on ? compare.side() : undefined;
    const session = side ? { ...found, compare: side.store.get().policyOverrides } : found;
    const hash = await encodeShareHash(session, SHARE_CONTEXT.speeds);
    const url = `${location.origin}${location.pathname}${location.search}${hash}`;
    if (url.length > MAX_LINK_CHARS) {
      setShare({ kind: 'too-long', chars: url.length });
      return;
    }
    if (!navigator.clipboard?.writeText) {
      setShare({ kind: 'manual', url, why: 'This browser gives the page no clipboard.' });
      return;
    }
    try {
      await navigator.clipboard.writeText(url);
      setShare({ kind: 'copied', url });
    } catch {
      setShare({ kind: 'manual', url, why: 'The clipboard refused the link.' });
    }
  };

  return (
    <div className="share">
      <button
        type="button"
        onClick={() => void makeLink()}
        disabled={fileText === ''}
        title={
          fileText === ''
            ? 'A replayed log cannot be shared as a link (its file stays on this computer): Re-simulate it in the Replay panel, then share the scenario'
            : 'Copy a link that reopens this run: scenario, policy settings, seed, speed and time'
        }
      >
        Share link
      </button>
      {share.kind === 'copied' && (
        <p className="share-popover share-copied" role="status">
          Link copied to the clipboard.
        </p>
      )}
      {share.kind === 'too-long' && (
        <div className="share-popover" role="alert">
          <p>
            This run&apos;s link would be {(share.chars / 1e6).toFixed(1)} MB, longer than a browser opens (about 2 MB): its scenario text is too large
            for a link. Share the text of the Scenario JSON editor as a file instead.
          </p>
          <button type="button" onClick={() => setShare({ kind: 'closed' })}>
            Close
          </button>
        </div>
      )}
      {share.kind === 'manual' && (
        <div
          className="share-popover"
          role="group"
          aria-label="Share link"
          onKeyDown={(event) => {
            if (event.key === 'Escape') setShare({ kind: 'closed' });
          }}
        >
          <label className="share-field">
            <span>
              {share.why} Copy this link:
            </span>
            <input ref={fieldRef} readOnly value={share.url} aria-label="Link to this run" onFocus={(event) => event.target.select()} />
          </label>
          <button type="button" onClick={() => setShare({ kind: 'closed' })}>
            Close
          </button>
        </div>
      )}
    </div>
  );
}
