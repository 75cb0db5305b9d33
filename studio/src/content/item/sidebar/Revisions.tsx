/** The item's revisions, newest first, each with who and when. Opening one shows, field by field, how that
 * revision differs from the item now; "Revert to this" (after a confirmation) writes the revision's values back,
 * limited to the fields the caller may update, and the form reloads. */
import { useEffect, useId, useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../../../app/session.tsx';
import { request } from '../../../api/client.ts';
import { ErrorNotice } from '../../../ui/ErrorNotice.tsx';
import { Loading } from '../../../ui/Loading.tsx';
import { fieldsOf, primaryKeyOf } from '../../schema.ts';
import { ConfirmDialog } from '../ConfirmDialog.tsx';
import { labelText } from '../FieldInput.tsx';
import { keyOfValue, type FieldInfo } from '../model.ts';
import { absoluteTime, canonical, personName, relativeTime, shown, type Person } from './format.ts';
import type { SidebarProps } from './Sidebar.tsx';
import { useModal } from '../../../ui/use-modal.ts';

interface Revision {
  id: number;
  data: Record<string, unknown> | null;
  delta: Record<string, unknown> | null;
  activity: { timestamp: string | null; action: string | null; user: string | null } | null;
}

const PAGE = 20;
const ACTIONS: Record<string, string> = { create: 'Created', update: 'Updated', delete: 'Deleted', revert: 'Reverted', version_save: 'Version saved' };

/** Columns a revision can carry and a revert can write back: not aliases (relations to many are their own
 * rows), not the primary key, not a hash (the snapshot holds the hash, not the password). */
function revertible(info: FieldInfo): boolean {
  const f = info.field;
  return f.type !== 'alias' && !f.schema?.is_primary_key && info.kind !== 'hash' && info.kind !== 'group';
}

function comparable(info: FieldInfo, value: unknown, ctxPk: (c: string) => string): unknown {
  if ((info.kind === 'm2o' || info.kind === 'file') && value && typeof value === 'object') return keyOfValue(value, ctxPk(info.related!));
  return value;
}

/** Names of the users a list mentions, from GET /users (one request; an editor who may not read users sees
 * "You" and "Another user" instead). */
function usePeople(ids: (string | null)[]): Map<string, Person> {
  const unique = [...new Set(ids.filter((x): x is string => Boolean(x)))].sort();
  const { data } = useQuery({
    queryKey: ['people', unique],
    enabled: unique.length > 0,
    retry: false,
    staleTime: 5 * 60_000,
    queryFn: ({ signal }) => request<Person[]>('GET', '/users', { query: { filter: { id: { _in: unique } }, fields: ['id', 'email', 'first_name', 'last_name'], limit: -1 }, signal }),
  });
  return new Map((data ?? []).map((p) => [p.id!, p]));
}

export function Revisions({ ctx, id, current, infos, mayUpdate, onReverted, dirty }: SidebarProps) {
  const queryClient = useQueryClient();
  const { me } = useSession();
  const key = ['revisions', ctx.collection, id];
  const revisions = useInfiniteQuery({
    queryKey: key,
    initialPageParam: 1,
    queryFn: ({ pageParam, signal }) => request<Revision[]>('GET', '/revisions', {
      query: {
        filter: { collection: { _eq: ctx.collection }, item: { _eq: id } },
        // svc_activity.user is a plain uuid (no relation: activity outlives the users it names); people are looked up below.
        fields: ['id', 'data', 'delta', 'activity.timestamp', 'activity.user', 'activity.action'],
        sort: '-id', limit: PAGE, page: pageParam,
      },
      signal,
    }),
    getNextPageParam: (last, all) => (last.length === PAGE ? all.length + 1 : undefined),
  });
  // A save of the form writes a revision: the list follows the item.
  useEffect(() => { void queryClient.invalidateQueries({ queryKey: key }); }, [current]); // eslint-disable-line react-hooks/exhaustive-deps

  const [open, setOpen] = useState<Revision | null>(null);
  const list = revisions.data?.pages.flat() ?? [];
  const people = usePeople(list.map((r) => r.activity?.user ?? null));
  const who = (r: Revision | null) => {
    const user = r?.activity?.user ?? null;
    if (!user) return 'The system';
    if (me?.id === user) return 'You';
    return people.get(user) ? personName(people.get(user)) : 'Another user';
  };
  const pkOf = (c: string) => primaryKeyOf(fieldsOf(ctx.allFields, c));

  if (revisions.error) return <ErrorNotice error={revisions.error} onRetry={() => void revisions.refetch()} />;
  if (!revisions.data) return <Loading label="Loading revisions" />;
  return (
    <div className="revisions">
      {list.length === 0 ? <p className="muted sidebar-empty">No revisions recorded for this item.</p> : (
        <ol className="revision-list" aria-label="Revisions">
          {list.map((r) => {
            const changed = Object.keys(r.delta ?? {}).filter((f) => infos.some((i) => i.field.field === f));
            const action = ACTIONS[r.activity?.action ?? ''] ?? 'Changed';
            return (
              <li key={r.id}>
                <button type="button" className="revision" onClick={() => setOpen(r)} aria-haspopup="dialog">
                  <span className="revision-head">
                    <strong>{action}</strong>
                    <time dateTime={r.activity?.timestamp ?? undefined} title={absoluteTime(r.activity?.timestamp)} className="muted">{relativeTime(r.activity?.timestamp)}</time>
                  </span>
                  <span className="revision-who">{who(r)}</span>
                  {changed.length > 0 && r.activity?.action !== 'create' && (
                    <span className="muted revision-fields">{changed.slice(0, 4).map((f) => labelText({ field: { field: f } } as FieldInfo)).join(', ')}{changed.length > 4 ? ` +${changed.length - 4}` : ''}</span>
                  )}
                </button>
              </li>
            );
          })}
        </ol>
      )}
      {revisions.hasNextPage && (
        <button type="button" className="btn btn-small" onClick={() => void revisions.fetchNextPage()} disabled={revisions.isFetchingNextPage}>
          {revisions.isFetchingNextPage ? 'Loading…' : 'Show older revisions'}
        </button>
      )}
      <RevisionDialog revision={open} who={who(open)} infos={infos} current={current} mayUpdate={mayUpdate} dirty={dirty} collection={ctx.collection} id={id}
        comparable={(info, v) => comparable(info, v, pkOf)}
        onClose={() => setOpen(null)}
        onReverted={async () => { setOpen(null); await onReverted(); await queryClient.invalidateQueries({ queryKey: key }); }} />
    </div>
  );
}

function RevisionDialog({ revision, who, infos, current, mayUpdate, dirty, collection, id, comparable: cmp, onClose, onReverted }: {
  revision: Revision | null;
  who: string;
  infos: FieldInfo[];
  current: Record<string, unknown>;
  mayUpdate(field: string): boolean;
  dirty: boolean;
  collection: string;
  id: string;
  comparable(info: FieldInfo, v: unknown): unknown;
  onClose(): void;
  onReverted(): Promise<void>;
}) {
  const open = revision !== null;
  const ref = useModal(open, () => setError(null));
  const titleId = useId();
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const data = revision?.data ?? {};
  const fields = infos.filter((i) => revertible(i) && i.field.field in data);
  const rows = fields.map((i) => {
    const then = data[i.field.field];
    const now = cmp(i, current[i.field.field]);
    return { info: i, then, now, differs: canonical(i, then) !== canonical(i, now) };
  });
  const differing = rows.filter((r) => r.differs);
  const writable = differing.filter((r) => mayUpdate(r.info.field.field));

  async function revert() {
    setBusy(true);
    setError(null);
    try {
      const body = Object.fromEntries(writable.map((r) => [r.info.field.field, r.then]));
      await request('PATCH', `/items/${encodeURIComponent(collection)}/${encodeURIComponent(id)}`, { body, query: { fields: ['*'] } });
      setConfirm(false);
      await onReverted();
    } catch (err) {
      setConfirm(false);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const when = absoluteTime(revision?.activity?.timestamp);
  return (
    <dialog ref={ref} className="revision-dialog" aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); if (!confirm) onClose(); }}>
      {revision && (
        <>
          <div className="dialog-head">
            <h2 id={titleId}>Revision of {when || `#${revision.id}`}</h2>
            <button type="button" className="btn btn-ghost icon-btn" aria-label="Close" onClick={onClose}>×</button>
          </div>
          <div className="dialog-body">
            <p className="muted">{ACTIONS[revision.activity?.action ?? ''] ?? 'Changed'} by {who.toLowerCase() === 'you' ? 'you' : who}. {differing.length === 0 ? 'The item is the same now as in this revision.' : `${differing.length} ${differing.length === 1 ? 'field differs' : 'fields differ'} from the item now.`}</p>
            {error !== null && <ErrorNotice error={error} title="Not reverted:" />}
            {differing.length > 0 && (
              <div className="table-wrap">
                <table className="grid diff-table">
                  <caption className="visually-hidden">Fields that differ between this revision and the item now</caption>
                  <thead><tr><th scope="col">Field</th><th scope="col">In this revision</th><th scope="col">Now</th></tr></thead>
                  <tbody>
                    {differing.map((r) => (
                      <tr key={r.info.field.field}>
                        <th scope="row">{labelText(r.info)}{!mayUpdate(r.info.field.field) && <span className="muted"> (read only)</span>}</th>
                        <td className="diff-then">{shown(r.info, r.then) ? <span>{shown(r.info, r.then)}</span> : <span className="muted">Empty</span>}</td>
                        <td className="diff-now">{shown(r.info, r.now) ? <span>{shown(r.info, r.now)}</span> : <span className="muted">Empty</span>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {dirty && writable.length > 0 && <p className="notice notice-warning">The form has unsaved changes: reverting replaces them with this revision.</p>}
          </div>
          <div className="dialog-foot">
            <button type="button" className="btn" onClick={onClose}>Close</button>
            {writable.length > 0 && <button type="button" className="btn btn-primary" onClick={() => setConfirm(true)} disabled={busy}>Revert to this</button>}
          </div>
        </>
      )}
      <ConfirmDialog open={confirm} title="Revert to this revision?" confirmLabel={busy ? 'Reverting…' : 'Revert'} busy={busy}
        onCancel={() => setConfirm(false)} onConfirm={() => void revert()}>
        <p>{writable.length === 1 ? 'One field' : `${writable.length} fields`} will get the values of {when || 'this revision'}: {writable.map((r) => labelText(r.info)).join(', ')}.</p>
      </ConfirmDialog>
    </dialog>
  );
}
