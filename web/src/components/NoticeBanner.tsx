import { Fragment, type ReactNode } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { useAppState } from './useStore';

/** Messages mark names with backticks; show them as code. */
function withCode(text: string): ReactNode {
  return text.split('`').map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : <Fragment key={index}>{part}</Fragment>));
}

/** What the app could not restore as asked (a share link's or the kept session's state), part by part. */
export function NoticeBanner({ store, controller }: { store: AppStore; controller: Controller }) {
  const notice = useAppState(store, (s) => s.notice);
  if (!notice) return null;
  return (
    <section className="notice" role="alert" aria-label="Restore problems">
      <div className="notice-head">
        <p className="notice-title">{notice.title}</p>
        <button type="button" onClick={() => controller.notify(undefined)}>
          Dismiss
        </button>
      </div>
      <ul>
        {notice.problems.map((problem, index) => (
          <li key={index}>
            {problem.path !== '' && <code>{problem.path}</code>}
            {problem.path !== '' ? ': ' : ''}
            {withCode(problem.message)}
          </li>
        ))}
      </ul>
      {notice.restDone !== false && <p className="notice-hint muted">Everything else was restored as it was.</p>}
    </section>
  );
}
