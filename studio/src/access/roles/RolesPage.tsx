/** /access/roles: the roles, paged and searched on the server, with their users counted (one grouped count beside
 * the list, not one request per role); create one by name, then edit it. */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request, requestList } from '../../api/client.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { recordName } from '../data.ts';
import { AccessBadges, CreateNamedDialog } from '../shared.tsx';
import { SortHeader, type Sort } from '../SortHeader.tsx';

interface RoleRow {
  id: string;
  name: string;
  description: string | null;
  admin_access: boolean;
  app_access: boolean;
  protected: boolean;
  parent: { name: string | null } | null;
}

export default function RolesPage() {
  const [, navigate] = useLocation();
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<Sort>({ field: 'name', desc: false });
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [creating, setCreating] = useState(false);
  const term = useDebounced(search.trim(), 250);
  const query = {
    fields: ['id', 'name', 'description', 'admin_access', 'app_access', 'protected', 'parent.name'],
    limit, page, meta: 'filter_count', search: term || undefined, sort: [`${sort.desc ? '-' : ''}${sort.field}`, 'id'],
  };
  const roles = useQuery({
    queryKey: ['access', 'roles', query],
    queryFn: ({ signal }) => requestList<RoleRow>('/roles', query, signal),
    placeholderData: keepPreviousData,
  });
  const counts = useQuery({
    queryKey: ['access', 'role-user-counts'],
    queryFn: async ({ signal }) => {
      const rows = (await requestList<{ role: string | null; count: { id: number } }>('/users', { aggregate: { count: ['id'] }, groupBy: ['role'] }, signal)).data;
      return new Map(rows.map((r) => [r.role, Number(r.count.id)]));
    },
  });
  const total = roles.data?.meta.filter_count;
  const rows = roles.data?.data ?? [];
  const reset = (fn: () => void) => { fn(); setPage(1); };

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Roles</h1>
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>Create role</button>
      </header>
      <div className="toolbar" role="search" aria-label="Find roles">
        <input type="search" aria-label="Search roles" placeholder="Search roles" value={search} onChange={(e) => reset(() => setSearch(e.target.value))} />
        <span className="muted toolbar-note">A user has one role; a role has policies, and inherits those of its parent.</span>
      </div>
      <div className="page-body access-list">
        {roles.error ? <ErrorNotice error={roles.error} onRetry={() => void roles.refetch()} />
          : !roles.data ? <Loading label="Loading roles" />
            : (
              <>
                <div className="table-wrap" aria-busy={roles.isFetching}>
                  <table className="grid access-table">
                    <caption className="visually-hidden">Roles</caption>
                    <thead>
                      <tr>
                        <SortHeader label="Name" field="name" sort={sort} onSort={(s) => reset(() => setSort(s))} />
                        <th scope="col">Access</th>
                        <th scope="col">Parent</th>
                        <th scope="col" className="num">Users</th>
                        <th scope="col">Description</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.length === 0 && <tr className="access-empty"><td colSpan={5}>{term ? 'No role matches.' : 'No roles yet.'}</td></tr>}
                      {rows.map((r) => (
                        <tr key={r.id} className="access-row" onClick={(e) => { if (!(e.target as HTMLElement).closest('a')) navigate(`/roles/${r.id}`); }}>
                          <td><Link className="row-link" href={`/roles/${r.id}`}>{recordName(r.name)}</Link>{r.protected && <span className="badge badge-quiet">Built in</span>}</td>
                          <td><AccessBadges admin={r.admin_access} app={r.app_access} empty={<span className="muted">Permissions only</span>} /></td>
                          <td>{r.parent ? recordName(r.parent.name) : <span className="muted">—</span>}</td>
                          <td className="num">{counts.data ? (counts.data.get(r.id) ?? 0) : '…'}</td>
                          <td className="wrap">{r.description ?? ''}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager page={page} pages={Math.max(1, Math.ceil((total ?? 0) / limit))} onPage={setPage} limit={limit} onLimit={(n) => reset(() => setLimit(n))}
                  summary={rangeSummary(page, limit, rows.length, total, 'roles')} label="Pages of roles" />
              </>
            )}
      </div>
      {creating && (
        <CreateNamedDialog title="Create role" noun="role" onClose={() => setCreating(false)}
          create={(name) => request<string>('POST', '/roles', { body: { name } })}
          onCreated={(id) => navigate(`/roles/${id}`)} />
      )}
    </div>
  );
}
