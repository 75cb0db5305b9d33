/** The reviewer's decisions on an active step, each in its dialog: approve (a comment if they like), reject (a
 * comment is required, and the form says so before anything is sent), comment, and delegate (a person found by a
 * server-side search of GET /users, and a comment). What was typed stays when the server refuses; its words show on
 * the field they concern, or under the form. */
import { useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { requestList } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { decide, refusal, type DecisionResult, type TaskAction } from './data.ts';
import type { Person } from './names.ts';

const MAX_COMMENT = 10_000;

export interface Target { instance: string; step: string; stepName: string; itemTitle: string }

const TEXT: Record<'approve' | 'reject' | 'comment', { title: string; send: string; busy: string; label: string; note: string; required: boolean; missing: string }> = {
  approve: {
    title: 'Approve', send: 'Approve', busy: 'Approving…', label: 'Comment (optional)', required: false, missing: '',
    note: 'Your approval and comment are kept in the review’s history.',
  },
  reject: {
    title: 'Reject', send: 'Reject', busy: 'Rejecting…', label: 'Why it is rejected (required)', required: true,
    missing: 'Write why you reject it: the author needs to know what to change.',
    note: 'A comment is required. The draft goes back to its author, who can change it and submit it again; the item stays as it is.',
  },
  comment: {
    title: 'Comment', send: 'Add comment', busy: 'Adding…', label: 'Comment (required)', required: true,
    missing: 'Write a comment first.',
    note: 'The comment is added to the review’s history; the step stays as it is.',
  },
};

/** Approve, reject or comment. */
export function DecisionDialog({ kind, target, onDone, onRefused, onClose }: {
  kind: 'approve' | 'reject' | 'comment';
  target: Target;
  onDone(result: DecisionResult, action: TaskAction): void;
  /** The server refused for a reason other than the comment: the review may have moved on. */
  onRefused(): void;
  onClose(): void;
}) {
  const t = TEXT[kind];
  const [comment, setComment] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();

  async function send(): Promise<void> {
    if (busy) return;
    if (t.required && !comment.trim()) {
      setFieldError(t.missing);
      document.getElementById(`${id}-comment`)?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    setFieldError(null);
    try {
      const result = await decide(target.instance, target.step, kind, comment.trim() ? { comment } : {});
      onDone(result, kind);
    } catch (err) {
      if (err instanceof ApiError && err.fieldErrors().comment) setFieldError(refusal(err));
      else {
        setError(refusal(err));
        onRefused();
      }
    } finally {
      setBusy(false);
    }
  }

  const described = [`${id}-note`, fieldError ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <Dialog title={`${t.title}: ${target.itemTitle}`} onClose={onClose} onSubmit={() => void send()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className={kind === 'reject' ? 'btn btn-danger' : 'btn btn-primary'} disabled={busy}>{busy ? t.busy : t.send}</button>
      </>}>
      <p className="decision-step">Step <strong>{target.stepName}</strong></p>
      <div className="field">
        <label htmlFor={`${id}-comment`}>{t.label}</label>
        <textarea id={`${id}-comment`} value={comment} maxLength={MAX_COMMENT} aria-required={t.required || undefined}
          aria-invalid={fieldError ? true : undefined} aria-describedby={described}
          onChange={(e) => { setComment(e.target.value); setFieldError(null); }} />
        <p className="field-note" id={`${id}-note`}>{t.note}</p>
        {fieldError && <p className="field-error" id={`${id}-error`}>{fieldError}</p>}
      </div>
      {error && <div className="notice notice-error" role="alert">{error}</div>}
    </Dialog>
  );
}

const PICKS = 8;

/** Hands the task to someone else: a person who may take part in reviews (the server checks), with a comment. */
export function DelegateDialog({ target, exclude, onDone, onRefused, onClose }: {
  target: Target;
  /** People who cannot take it: the caller and the step's other assignees. */
  exclude: string[];
  onDone(result: DecisionResult, action: TaskAction, to: Person): void;
  onRefused(): void;
  onClose(): void;
}) {
  const [term, setTerm] = useState('');
  const [chosen, setChosen] = useState<Person | null>(null);
  const [comment, setComment] = useState('');
  const [pickError, setPickError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const search = useDebounced(term.trim(), 250);
  const query = {
    search: search || undefined,
    filter: { _and: [{ status: { _eq: 'active' } }, ...(exclude.length ? [{ id: { _nin: exclude } }] : [])] },
    fields: ['id', 'first_name', 'last_name', 'email'],
    sort: ['first_name', 'last_name', 'email', 'id'],
    limit: PICKS,
    meta: 'filter_count',
  };
  const people = useQuery({
    queryKey: ['tasks', 'delegates', query],
    queryFn: ({ signal }) => requestList<Person>('/users', query, signal),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const rows = people.data?.data ?? [];
  const more = (people.data?.meta.filter_count ?? 0) - rows.length;

  async function send(): Promise<void> {
    if (busy) return;
    if (!chosen) {
      setPickError('Choose who takes over this task.');
      document.getElementById(`${id}-search`)?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    setPickError(null);
    try {
      const result = await decide(target.instance, target.step, 'delegate', { to_user: chosen.id, ...(comment.trim() ? { comment } : {}) });
      onDone(result, 'delegate', chosen);
    } catch (err) {
      const fields = err instanceof ApiError ? err.fieldErrors() : {};
      if (fields.to_user) setPickError(refusal(err));
      else {
        setError(refusal(err));
        onRefused();
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title={`Delegate: ${target.itemTitle}`} onClose={onClose} onSubmit={() => void send()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Delegating…' : 'Delegate'}</button>
      </>}>
      <p className="decision-step">Step <strong>{target.stepName}</strong> goes to the person you choose; it leaves your tasks.</p>
      <div className="field">
        <label htmlFor={`${id}-search`}>Find a person</label>
        <input id={`${id}-search`} type="search" value={term} autoComplete="off" placeholder="Name or email"
          aria-describedby={pickError ? `${id}-pick-error` : undefined} onChange={(e) => setTerm(e.target.value)} />
      </div>
      <fieldset className="delegate-picks" role="radiogroup" aria-invalid={pickError ? true : undefined} aria-describedby={pickError ? `${id}-pick-error` : undefined}
        aria-busy={people.isFetching || undefined}>
        <legend>Delegate to</legend>
        {people.error ? (
          <div className="notice notice-error" role="alert">
            {people.error instanceof ApiError && people.error.status === 403
              ? 'You may not look people up (that needs read access to users), so you cannot delegate from here.'
              : refusal(people.error)}
          </div>
        ) : !people.data ? <Loading label="Finding people" />
          : rows.length === 0 ? <p className="muted delegate-none">{search ? `Nobody matches “${search}”.` : 'There is nobody else to delegate to.'}</p>
            : (
              <ul>
                {rows.map((p) => (
                  <li key={p.id}>
                    <label className="delegate-pick">
                      <input type="radio" name={`${id}-to`} checked={chosen?.id === p.id} onChange={() => { setChosen(p); setPickError(null); }} />
                      <span className="delegate-name">{[p.first_name, p.last_name].filter(Boolean).join(' ') || p.email || 'Unnamed user'}</span>
                      {p.email && (p.first_name || p.last_name) && <span className="muted delegate-email">{p.email}</span>}
                    </label>
                  </li>
                ))}
              </ul>
            )}
        {more > 0 && <p className="field-note">{more} more; type to narrow the list.</p>}
        {chosen && !rows.some((p) => p.id === chosen.id) && (
          <p className="field-note">Chosen: {[chosen.first_name, chosen.last_name].filter(Boolean).join(' ') || chosen.email}</p>
        )}
        {pickError && <p className="field-error" id={`${id}-pick-error`}>{pickError}</p>}
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-comment`}>Comment (optional)</label>
        <textarea id={`${id}-comment`} value={comment} maxLength={MAX_COMMENT} onChange={(e) => setComment(e.target.value)} />
      </div>
      {error && <div className="notice notice-error" role="alert">{error}</div>}
    </Dialog>
  );
}
