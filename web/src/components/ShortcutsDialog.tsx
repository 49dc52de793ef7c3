import { useEffect, useRef } from 'react';
import type { AppStore } from '../store/app';
import type { Action } from '../actions/actions';
import { useAppState } from './useStore';

/** How a key is written in the list. */
function keyName(key: string): string {
  if (key === ' ') return 'Space';
  if (key === 'ArrowRight') return '→';
  return key;
}

/** The `?` overlay: every keyboard shortcut, the app's and the timeline's. */
export function ShortcutsDialog({ store, actions }: { store: AppStore; actions: readonly Action[] }) {
  const open = useAppState(store, (s) => s.shortcutsOpen);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  // A modal <dialog>: the page behind it is inert (Tab stays inside, no shortcut acts
  // behind it), and Escape closes it (its `cancel` event) wherever the focus is.
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!open || !dialog) return;
    if (!dialog.open) dialog.showModal();
    closeRef.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
    };
  }, [open]);
  if (!open) return null;
  const close = () => store.set({ shortcutsOpen: false });
  return (
    <dialog
      ref={dialogRef}
      className="shortcuts"
      aria-label="Keyboard shortcuts"
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
      // A click on the backdrop lands on the dialog itself: it closes the list.
      onClick={(event) => {
        if (event.target === event.currentTarget) close();
      }}
    >
      <div className="shortcuts-body">
        <h2>Keyboard shortcuts</h2>
        <table>
          <tbody>
            {actions.map((action) => (
              <tr key={action.id}>
                <td>
                  {action.keys.map((key) => (
                    <kbd key={key}>{keyName(key)}</kbd>
                  ))}
                </td>
                <td>{action.name}</td>
              </tr>
            ))}
            <tr>
              <td>
                <kbd>+</kbd> <kbd>-</kbd> <kbd>←</kbd> <kbd>→</kbd>
              </td>
              <td>With the timeline's lanes focused: zoom in and out around the playhead, pan</td>
            </tr>
            <tr>
              <td>
                <kbd>←</kbd> <kbd>→</kbd> <kbd>Home</kbd> <kbd>End</kbd>
              </td>
              <td>With the machine drawing focused (Tab to it): choose a CPU for the Inspector, ringed on the drawing</td>
            </tr>
            <tr>
              <td>
                <kbd>Esc</kbd>
              </td>
              <td>With the timeline's lanes focused: back to the window before the last zoom, then to following the playhead</td>
            </tr>
            <tr>
              <td>
                <span className="gesture">Drag on the time axis</span>
              </td>
              <td>Zoom the timeline to the dragged window (a click there moves the playhead instead)</td>
            </tr>
            <tr>
              <td>
                <kbd>Enter</kbd>
              </td>
              <td>On an event log line: explain it in the Inspector</td>
            </tr>
            <tr>
              <td>
                <kbd>Esc</kbd>
              </td>
              <td>Close this list, or a menu</td>
            </tr>
          </tbody>
        </table>
        <button ref={closeRef} type="button" onClick={close}>
          Close
        </button>
      </div>
    </dialog>
  );
}
