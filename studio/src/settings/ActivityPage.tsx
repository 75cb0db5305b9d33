/** /settings/activity: the activity log (GET /activity), newest first, paged and filtered on the server: by action,
 * user (a server-side search), collection, time range and address. A row opens its detail: who, when, from where,
 * and the revisions it wrote (the fields changed), with a link to the item. */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { requestList } from '../api/client.ts';
import { useDebounced } from '../content/list/useDebounced.ts';
import { titleOf, useCollections } from '../content/schema.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { Pager, rangeSummary } from '../ui/Pager.tsx';
import { when } from './data.ts';

interface Activity {
  id: number;
  action: string;
  user: string | null;
  timestamp: string;
  ip: string | null;
  user_agent: string | null;
  collection: string;
  item: string;
  origin: string | null;
  impersonated_by: string | null;
  revisions: { id: number; delta: Record<string, unknown> | null }[] | null;
}

interface UserName { id: string; first_name: string | null; last_name: string | null; email: string | null }

const ACTIONS: Record<string, string> = {
  create: 'Created', update: 'Updated', delete: 'Deleted', login: 'Signed in', logout: 'Signed out',
  'impersonation.started': 'Impersonation started', 'impersonation.stopped': 'Impersonation stopped', comment: 'Commented',
};
const FIELDS = ['id', 'action', 'user', 'timestamp', 'ip', 'user_agent', 'collection', 'item', 'origin', 'impersonated_by', 'revisions.id', 'revisions.delta'];

function nameOf(u: UserName | undefined, id: string | null): string {
  if (!id) return 'The system';
  if (!u) return `User ${id.slice(0, 8)}`;
  return [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email || `User ${id.slice(0, 8)}`;
}

/** A local date input ("2026-11-28") as the start of that day, or the start of the next one for an end. */
function dayBound(date: string, end: boolean): string | null {
  if (!date) return null;
  const d = new Date(`${date}T00:00:00`);
  if (Number.isNaN(d.getTime())) return null;
  if (end) d.setDate(d.getDate() + 1);
  return d.toISOString();
}

export default function ActivityPage() {
  const collections = useCollections();
  const [action, setAction] = useState('');
  const [collection, setCollection] = useState('');
  const [user, setUser] = useState<UserName | null>(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [ip, setIp] = useState('');
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [open, setOpen] = useState<Activity | null>(null);
  const ipTerm = useDebounced(ip.trim(), 300);
  const reset = (fn: () => void): void => { fn(); setPage(1); };

  const filter: Record<string, unknown>[] = [];
  if (action) filter.push({ action: { _eq: action } });
  if (collection) filter.push({ collection: { _eq: collection } });
  if (user) filter.push({ user: { _eq: user.id } });
  const start = dayBound(from, false);
  const end = dayBound(to, true);
  if (start) filter.push({ timestamp: { _gte: start } });
  if (end) filter.push({ timestamp: { _lt: end } });
  if (ipTerm) filter.push({ ip: { _contains: ipTerm } });
  const query = { fields: FIELDS, sort: ['-timestamp', '-id'], limit, page, meta: 'filter_count', filter: filter.length ? { _and: filter } : undefined };
  const rows = useQuery({
    queryKey: ['settings', 'activity', query],
    queryFn: ({ signal }) => requestList<Activity>('/activity', query, signal),
    placeholderData: keepPreviousData,
  });
  // The names of the page's users, in one request once the page is in.
  const ids = [...new Set((rows.data?.data ?? []).flatMap((a) => [a.user, a.impersonated_by]).filter((x): x is string => Boolean(x)))].sort();
  const users = useQuery({
    queryKey: ['settings', 'activity-users', ids],
    enabled: ids.length > 0,
    queryFn: ({ signal }) => requestList<UserName>('/users', { fields: ['id', 'first_name', 'last_name', 'email'], filter: { id: { _in: ids } }, limit: ids.length }, signal),
  });
  const byId = new Map((users.data?.data ?? []).map((u) => [u.id, u]));
  const total = rows.data?.meta.filter_count;
  const pages = Math.max(1, Math.ceil((total ?? 0) / limit));
  const list = rows.data?.data ?? [];
  const known = new Set((collections.data ?? []).map((c) => c.collection));
  const narrowed = filter.length > 0;

  return (
    <div className="main-pane">
      <header className="page-header"><h1>Activity</h1></header>
      <div className="toolbar settings-filters" role="search" aria-label="Filter activity">
        <label className="toolbar-select">
          <span>Action</span>
          <select aria-label="Action" value={action} onChange={(e) => reset(() => setAction(e.target.value))}>
            <option value="">Any</option>
            {Object.entries(ACTIONS).map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
        <label className="toolbar-select">
          <span>Collection</span>
          <select aria-label="Collection" value={collection} onChange={(e) => reset(() => setCollection(e.target.value))}>
            <option value="">Any</option>
            {(collections.data ?? []).filter((c) => c.schema !== null).sort((a, b) => Number(a.collection.startsWith('svc_')) - Number(b.collection.startsWith('svc_')) || a.collection.localeCompare(b.collection))
              .map((c) => <option key={c.collection} value={c.collection}>{c.collection.startsWith('svc_') ? `${titleOf(c.collection)} (system)` : titleOf(c.collection)}</option>)}
          </select>
        </label>
        <UserFilter user={user} onChange={(u) => reset(() => setUser(u))} />
        <label className="toolbar-select"><span>From</span><input type="date" aria-label="From" value={from} onChange={(e) => reset(() => setFrom(e.target.value))} /></label>
        <label className="toolbar-select"><span>To</span><input type="date" aria-label="To" value={to} onChange={(e) => reset(() => setTo(e.target.value))} /></label>
        <label className="toolbar-select"><span>Address</span><input type="search" aria-label="Address" className="ip-filter" placeholder="e.g. 10.0." value={ip} onChange={(e) => reset(() => setIp(e.target.value))} /></label>
      </div>
      <div className="page-body settings-list">
        {rows.error ? <ErrorNotice error={rows.error} onRetry={() => void rows.refetch()} />
          : !rows.data ? <Loading label="Loading activity" />
            : (
              <>
                <div className="table-wrap" aria-busy={rows.isFetching}>
                  <table className="grid settings-table">
                    <caption className="visually-hidden">Activity</caption>
                    <thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Who</th><th scope="col">Collection</th><th scope="col">Item</th><th scope="col">Address</th></tr></thead>
                    <tbody>
                      {list.length === 0 && <tr className="settings-empty-row"><td colSpan={6}>{narrowed ? 'Nothing matches these filters.' : 'Nothing has happened yet.'}</td></tr>}
                      {list.map((a) => (
                        <tr key={a.id}>
                          <td><button type="button" className="link-button" onClick={() => setOpen(a)} aria-label={`${ACTIONS[a.action] ?? a.action} ${titleOf(a.collection)} ${a.item}, ${when(a.timestamp)}: details`}>{when(a.timestamp)}</button></td>
                          <td>{ACTIONS[a.action] ?? a.action}</td>
                          <td>{nameOf(byId.get(a.user ?? ''), a.user)}{a.impersonated_by && <span className="muted"> (as impersonated by {nameOf(byId.get(a.impersonated_by), a.impersonated_by)})</span>}</td>
                          <td>{titleOf(a.collection)}</td>
                          <td className="mono">{a.item}</td>
                          <td className="mono">{a.ip ?? '—'}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager page={page} pages={pages} onPage={setPage} limit={limit} onLimit={(n) => reset(() => setLimit(n))}
                  summary={rangeSummary(page, limit, list.length, total, 'entries')} label="Pages of activity" />
              </>
            )}
      </div>
      {open && <ActivityDetail activity={open} who={nameOf(byId.get(open.user ?? ''), open.user)} linkable={known.has(open.collection) && !open.collection.startsWith('svc_') && open.action !== 'delete'} onClose={() => setOpen(null)} />}
    </div>
  );
}

/** Who did it: a server-side search over users, then the chosen one as a removable chip. */
function UserFilter({ user, onChange }: { user: UserName | null; onChange(u: UserName | null): void }) {
  const [text, setText] = useState('');
  const term = useDebounced(text.trim(), 250);
  const found = useQuery({
    queryKey: ['settings', 'user-search', term],
    enabled: term.length > 0 && !user,
    queryFn: ({ signal }) => requestList<UserName>('/users', { fields: ['id', 'first_name', 'last_name', 'email'], search: term, limit: 8, sort: ['email'] }, signal),
  });
  const showing = Boolean(text.trim() && term && found.data);
  if (user) {
    return (
      <span className="toolbar-select">
        <span>User</span>
        <span className="badge user-chip">{nameOf(user, user.id)}
          <button type="button" className="btn btn-small btn-ghost" aria-label={`Any user instead of ${nameOf(user, user.id)}`} onClick={() => { onChange(null); setText(''); }}>✕</button>
        </span>
      </span>
    );
  }
  return (
    <div className="user-filter">
      <label className="toolbar-select"><span>User</span>
        <input type="search" aria-label="User" placeholder="Name or email" value={text} onChange={(e) => setText(e.target.value)} aria-controls={showing ? 'activity-user-results' : undefined} />
      </label>
      {showing && found.data && (
        <ul id="activity-user-results" className="user-results" aria-label="Matching users">
          {found.data.data.length === 0 && <li className="muted">No user matches.</li>}
          {found.data.data.map((u) => (
            <li key={u.id}><button type="button" className="link-button" onClick={() => onChange(u)}>{nameOf(u, u.id)}{u.email && nameOf(u, u.id) !== u.email && <span className="muted"> {u.email}</span>}</button></li>
          ))}
        </ul>
      )}
    </div>
  );
}

function ActivityDetail({ activity, who, linkable, onClose }: { activity: Activity; who: string; linkable: boolean; onClose(): void }) {
  const revisions = activity.revisions ?? [];
  return (
    <Dialog title={`${ACTIONS[activity.action] ?? activity.action}: ${titleOf(activity.collection)} ${activity.item}`} onClose={onClose} wide
      footer={<>
        {linkable && <Link className="btn" href={`~/admin/content/${encodeURIComponent(activity.collection)}/${encodeURIComponent(activity.item)}`}>Open the item</Link>}
        <button type="button" className="btn btn-primary" onClick={onClose} data-autofocus>Close</button>
      </>}>
      <dl className="facts">
        <dt>When</dt><dd>{when(activity.timestamp)}</dd>
        <dt>Who</dt><dd>{who}</dd>
        <dt>Address</dt><dd className="mono">{activity.ip ?? '—'}</dd>
        <dt>Browser or client</dt><dd>{activity.user_agent ?? '—'}</dd>
        {activity.origin && <><dt>Origin</dt><dd className="mono">{activity.origin}</dd></>}
      </dl>
      {revisions.length === 0 ? <p className="muted">This entry wrote no revision{activity.action === 'delete' ? ' (a deletion keeps none)' : ''}.</p> : revisions.map((r) => (
        <div key={r.id} className="table-wrap">
          <table className="grid settings-table revision-delta">
            <caption>Revision {r.id}: the fields it set</caption>
            <thead><tr><th scope="col">Field</th><th scope="col">Value</th></tr></thead>
            <tbody>
              {Object.entries(r.delta ?? {}).map(([field, value]) => (
                <tr key={field}><th scope="row">{titleOf(field)}</th><td className="mono">{value === null ? 'empty' : typeof value === 'object' ? JSON.stringify(value) : String(value)}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </Dialog>
  );
}
