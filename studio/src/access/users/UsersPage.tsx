/** /access/users: every user, paged, searched and filtered on the server (role, status), sortable by column; invite
 * people by mail or create an account with a password. A row opens the user. */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { requestList } from '../../api/client.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { recordName, statusLabel, USER_STATUSES, useRoleOptions, userName, when, type UserRow } from '../data.ts';
import { SortHeader, type Sort } from '../SortHeader.tsx';
import { CreateUserDialog } from './CreateUserDialog.tsx';
import { InviteDialog } from './InviteDialog.tsx';

const FIELDS = ['id', 'first_name', 'last_name', 'email', 'status', 'role.id', 'role.name', 'tfa_enabled', 'last_access'];

export default function UsersPage() {
  const [, navigate] = useLocation();
  const [search, setSearch] = useState('');
  const [role, setRole] = useState('');
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState<Sort>({ field: 'email', desc: false });
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [open, setOpen] = useState<null | 'invite' | 'create'>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const term = useDebounced(search.trim(), 250);
  const roles = useRoleOptions();

  const filter: Record<string, unknown>[] = [];
  if (role === 'none') filter.push({ role: { _null: true } });
  else if (role) filter.push({ role: { _eq: role } });
  if (status) filter.push({ status: { _eq: status } });
  const query = {
    fields: FIELDS, limit, page, meta: 'filter_count', search: term || undefined,
    sort: [`${sort.desc ? '-' : ''}${sort.field}`, 'id'],
    filter: filter.length > 0 ? { _and: filter } : undefined,
  };
  const users = useQuery({
    queryKey: ['access', 'users', query],
    queryFn: ({ signal }) => requestList<UserRow>('/users', query, signal),
    placeholderData: keepPreviousData,
  });
  const total = users.data?.meta.filter_count;
  const pages = Math.max(1, Math.ceil((total ?? 0) / limit));
  const rows = users.data?.data ?? [];
  const filtered = Boolean(term || role || status);
  const reset = (fn: () => void) => { fn(); setPage(1); };

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Users</h1>
        <button type="button" className="btn" onClick={() => setOpen('invite')}>Invite users</button>
        <button type="button" className="btn btn-primary" onClick={() => setOpen('create')}>Create user</button>
      </header>
      <div className="toolbar" role="search" aria-label="Find users">
        <input type="search" aria-label="Search users" placeholder="Search name or email" value={search} onChange={(e) => reset(() => setSearch(e.target.value))} />
        <label className="toolbar-select">
          <span>Role</span>
          <select value={role} onChange={(e) => reset(() => setRole(e.target.value))}>
            <option value="">Any role</option>
            <option value="none">No role</option>
            {(roles.data ?? []).map((r) => <option key={r.id} value={r.id}>{recordName(r.name)}</option>)}
          </select>
        </label>
        <label className="toolbar-select">
          <span>Status</span>
          <select value={status} onChange={(e) => reset(() => setStatus(e.target.value))}>
            <option value="">Any status</option>
            {USER_STATUSES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
          </select>
        </label>
      </div>
      {notice && <div className="access-notice"><p className="notice notice-success" role="status">{notice}</p></div>}
      <div className="page-body access-list">
        {users.error ? <ErrorNotice error={users.error} onRetry={() => void users.refetch()} />
          : !users.data ? <Loading label="Loading users" />
            : (
              <>
                <div className="table-wrap" aria-busy={users.isFetching}>
                  <table className="grid access-table">
                    <caption className="visually-hidden">Users</caption>
                    <thead>
                      <tr>
                        <SortHeader label="Name" field="first_name" sort={sort} onSort={(s) => reset(() => setSort(s))} />
                        <SortHeader label="Email" field="email" sort={sort} onSort={(s) => reset(() => setSort(s))} />
                        <SortHeader label="Role" field="role.name" sort={sort} onSort={(s) => reset(() => setSort(s))} />
                        <SortHeader label="Status" field="status" sort={sort} onSort={(s) => reset(() => setSort(s))} />
                        <th scope="col">Two-factor</th>
                        <SortHeader label="Last access" field="last_access" sort={sort} onSort={(s) => reset(() => setSort(s))} />
                      </tr>
                    </thead>
                    <tbody>
                      {rows.length === 0 && (
                        <tr className="access-empty"><td colSpan={6}>{filtered ? 'No user matches these filters.' : 'No users yet. Invite someone or create an account.'}</td></tr>
                      )}
                      {rows.map((u) => (
                        <tr key={u.id} className="access-row" onClick={(e) => { if (!(e.target as HTMLElement).closest('a')) navigate(`/users/${u.id}`); }}>
                          <td><Link className="row-link" href={`/users/${u.id}`}>{userName(u)}</Link></td>
                          <td>{u.email ?? '—'}</td>
                          <td>{u.role ? recordName(u.role.name) : <span className="muted">No role</span>}</td>
                          <td><span className={`badge status-${u.status}`}>{statusLabel(u.status)}</span></td>
                          <td>{u.tfa_enabled ? 'On' : <span className="muted">Off</span>}</td>
                          <td>{when(u.last_access)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager page={page} pages={pages} onPage={setPage} limit={limit} onLimit={(n) => reset(() => setLimit(n))}
                  summary={rangeSummary(page, limit, rows.length, total, 'users')} label="Pages of users" />
              </>
            )}
      </div>
      {open === 'invite' && <InviteDialog onClose={() => setOpen(null)} onDone={(message) => { setOpen(null); setNotice(message); }} />}
      {open === 'create' && <CreateUserDialog onClose={() => setOpen(null)} onCreated={(id) => { setOpen(null); navigate(`/users/${id}`); }} />}
    </div>
  );
}
