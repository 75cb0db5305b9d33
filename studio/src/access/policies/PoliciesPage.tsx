/** /access/policies: the policies (sets of permissions attached to roles and users), paged and searched on the
 * server; create one by name, then edit its details, permissions and app permissions. */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request, requestList } from '../../api/client.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { recordName, type PolicyRecord } from '../data.ts';
import { AccessBadges, CreateNamedDialog } from '../shared.tsx';
import { SortHeader, type Sort } from '../SortHeader.tsx';

export default function PoliciesPage() {
  const [, navigate] = useLocation();
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<Sort>({ field: 'name', desc: false });
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [creating, setCreating] = useState(false);
  const term = useDebounced(search.trim(), 250);
  const query = {
    fields: ['id', 'name', 'description', 'admin_access', 'app_access', 'ip_access'],
    limit, page, meta: 'filter_count', search: term || undefined, sort: [`${sort.desc ? '-' : ''}${sort.field}`, 'id'],
  };
  const policies = useQuery({
    queryKey: ['access', 'policies', query],
    queryFn: ({ signal }) => requestList<PolicyRecord>('/policies', query, signal),
    placeholderData: keepPreviousData,
  });
  const total = policies.data?.meta.filter_count;
  const rows = policies.data?.data ?? [];
  const reset = (fn: () => void) => { fn(); setPage(1); };

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Policies</h1>
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>Create policy</button>
      </header>
      <div className="toolbar" role="search" aria-label="Find policies">
        <input type="search" aria-label="Search policies" placeholder="Search policies" value={search} onChange={(e) => reset(() => setSearch(e.target.value))} />
        <span className="muted toolbar-note">A policy holds permissions; attach it to roles (or to single users).</span>
      </div>
      <div className="page-body access-list">
        {policies.error ? <ErrorNotice error={policies.error} onRetry={() => void policies.refetch()} />
          : !policies.data ? <Loading label="Loading policies" />
            : (
              <>
                <div className="table-wrap" aria-busy={policies.isFetching}>
                  <table className="grid access-table">
                    <caption className="visually-hidden">Policies</caption>
                    <thead>
                      <tr>
                        <SortHeader label="Name" field="name" sort={sort} onSort={(s) => reset(() => setSort(s))} />
                        <th scope="col">Access</th>
                        <th scope="col">IP ranges</th>
                        <th scope="col">Description</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.length === 0 && <tr className="access-empty"><td colSpan={4}>{term ? 'No policy matches.' : 'No policies yet.'}</td></tr>}
                      {rows.map((p) => (
                        <tr key={p.id} className="access-row" onClick={(e) => { if (!(e.target as HTMLElement).closest('a')) navigate(`/policies/${p.id}`); }}>
                          <td><Link className="row-link" href={`/policies/${p.id}`}>{recordName(p.name)}</Link></td>
                          <td><AccessBadges admin={p.admin_access} app={p.app_access} empty={<span className="muted">Permissions only</span>} /></td>
                          <td>{p.ip_access?.length ? <span className="mono">{p.ip_access.join(', ')}</span> : <span className="muted">Anywhere</span>}</td>
                          <td className="wrap">{p.description ?? ''}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager page={page} pages={Math.max(1, Math.ceil((total ?? 0) / limit))} onPage={setPage} limit={limit} onLimit={(n) => reset(() => setLimit(n))}
                  summary={rangeSummary(page, limit, rows.length, total, 'policies')} label="Pages of policies" />
              </>
            )}
      </div>
      {creating && (
        <CreateNamedDialog title="Create policy" noun="policy" onClose={() => setCreating(false)}
          create={(name) => request<string>('POST', '/policies', { body: { name } })}
          onCreated={(id) => navigate(`/policies/${id}/permissions`)}
          note="Next you grant its permissions; attach it to a role from the role's page." />
      )}
    </div>
  );
}
