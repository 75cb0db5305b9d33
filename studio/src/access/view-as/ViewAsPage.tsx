/** /access/view-as?user=<id>: what a chosen user would get, without signing in as them. The server computes it with
 * the resolver behind the user's own GET /permissions/me (GET /permissions/as/{user}): their role and its parents,
 * every policy (and whether its IP ranges let it apply from a given address), Studio and administrator access,
 * app permissions, and per collection the actions they may take, on which items, with which fields. Nothing is
 * written and no session is made: this is not impersonation. */
import { useMemo, useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { request, requestList } from '../../api/client.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { titleOf, type Action, type ActionAccess } from '../../content/schema.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { recordName, statusLabel, userName, type UserStatus } from '../data.ts';
import { ACTION_LABEL, ACTIONS } from '../policies/matrix.ts';
import { describeFilter } from './filter-text.ts';

interface ViewAs {
  user: { id: string; email: string | null; first_name: string | null; last_name: string | null; status: UserStatus; role: string | null };
  roles: { id: string; name: string | null }[];
  policies: { id: string; name: string | null; admin_access: boolean; app_access: boolean; ip_access: string[] | null; applies: boolean }[];
  ip: string | null;
  globals: { app_access: boolean; admin_access: boolean; enforce_tfa: boolean };
  app_permissions: string[];
  permissions: Record<string, Partial<Record<Action, ActionAccess>>>;
}

interface Found { id: string; email: string | null; first_name: string | null; last_name: string | null; status: UserStatus; role: { name: string | null } | null }

export default function ViewAsPage() {
  const params = new URLSearchParams(useSearch());
  const chosen = params.get('user');
  const ip = params.get('ip') ?? '';
  const [, navigate] = useLocation();
  const open = (user: string, address = ''): void => navigate(`/view-as?user=${encodeURIComponent(user)}${address ? `&ip=${encodeURIComponent(address)}` : ''}`);
  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>View as</h1>
        <span className="muted header-note">What a user would get, computed by the server as for their own requests. You stay yourself.</span>
      </header>
      <div className="page-body view-as">
        <UserFinder onPick={(id) => open(id)} />
        {chosen ? <Result key={`${chosen}|${ip}`} user={chosen} ip={ip} onAddress={(address) => open(chosen, address)} />
          : <p className="muted view-as-empty">Find a user above to see their role, policies and permissions as the server resolves them.</p>}
      </div>
    </div>
  );
}

function UserFinder({ onPick }: { onPick(id: string): void }) {
  const [text, setText] = useState('');
  const term = useDebounced(text.trim(), 250);
  const query = { fields: ['id', 'email', 'first_name', 'last_name', 'status', 'role.name'], search: term, limit: 8, sort: ['email'] };
  const found = useQuery({
    queryKey: ['access', 'view-as-find', term],
    queryFn: ({ signal }) => requestList<Found>('/users', query, signal),
    enabled: term !== '',
    placeholderData: keepPreviousData,
  });
  const list = term ? found.data?.data ?? [] : [];
  return (
    <section className="access-card finder" aria-labelledby="finder-title">
      <h2 id="finder-title">User</h2>
      <input type="search" aria-label="Find a user" placeholder="Name or email" value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" />
      {found.error && <ErrorNotice error={found.error} onRetry={() => void found.refetch()} />}
      {term && found.data && list.length === 0 && <p className="muted">No user matches “{term}”.</p>}
      {list.length > 0 && (
        <ul className="finder-results" aria-label="Matching users">
          {list.map((u) => (
            <li key={u.id}>
              <button type="button" className="finder-result" onClick={() => { onPick(u.id); setText(''); }}>
                <span className="finder-name">{userName(u)}</span>
                <span className="muted">{u.email}</span>
                <span className="muted">{u.role ? recordName(u.role.name) : 'No role'}</span>
                {u.status !== 'active' && <span className={`badge status-${u.status}`}>{statusLabel(u.status)}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Result({ user, ip, onAddress }: { user: string; ip: string; onAddress(address: string): void }) {
  const view = useQuery({
    queryKey: ['access', 'view-as', user, ip],
    queryFn: ({ signal }) => request<ViewAs>('GET', `/permissions/as/${encodeURIComponent(user)}`, { query: { ip: ip || undefined }, signal }),
  });
  const [address, setAddress] = useState(ip);
  if (view.error) return <ErrorNotice error={view.error} onRetry={() => void view.refetch()} />;
  if (!view.data) return <Loading label="Resolving their permissions" />;
  const v = view.data;
  const name = userName(v.user);
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    onAddress(address.trim());
  };
  const ipLimited = v.policies.some((p) => p.ip_access);
  return (
    <>
      <section className="access-card" aria-labelledby="who-title">
        <div className="card-head">
          <h2 id="who-title">{name}</h2>
          <span className={`badge status-${v.user.status}`}>{statusLabel(v.user.status)}</span>
          <span className="toolbar-spacer" />
          <Link className="btn btn-small" href={`/users/${v.user.id}`}>Open user</Link>
        </div>
        {v.user.status !== 'active' && (
          <p className="notice notice-warning">They cannot sign in now ({statusLabel(v.user.status).toLowerCase()}). This is what they would get once active.</p>
        )}
        <dl className="facts">
          <dt>Email</dt><dd>{v.user.email ?? '—'}</dd>
          <dt>Role</dt><dd>{v.roles.length === 0 ? <span className="muted">No role</span> : v.roles.map((r, i) => (
            <span key={r.id}>{i > 0 && <span className="muted"> ← inherits from </span>}<Link href={`/roles/${r.id}`}>{recordName(r.name)}</Link></span>
          ))}</dd>
          <dt>Administrator</dt><dd>{v.globals.admin_access ? 'Yes: no permission is checked' : 'No'}</dd>
          <dt>Studio access</dt><dd>{v.globals.app_access ? 'Yes' : 'No (API only)'}</dd>
          <dt>Two-factor required</dt><dd>{v.globals.enforce_tfa ? 'Yes' : 'No'}</dd>
          <dt>App permissions</dt><dd>{v.app_permissions.length === 0 ? <span className="muted">None</span>
            : <span className="chips">{v.app_permissions.map((p) => <code key={p} className="chip">{p}</code>)}</span>}</dd>
        </dl>
      </section>
      <section className="access-card" aria-labelledby="policies-title">
        <h2 id="policies-title">Policies</h2>
        <form className="address-form" onSubmit={submit}>
          <label htmlFor="view-as-ip">Requests from address</label>
          <input id="view-as-ip" className="mono" value={address} onChange={(e) => setAddress(e.target.value)} placeholder={v.ip ?? 'your address'} spellCheck={false} />
          <button type="submit" className="btn btn-small">Apply</button>
          <span className="field-note">{ipLimited ? `Policies limited to IP ranges apply only from inside them. Now: ${v.ip ?? 'unknown'}${ip ? '' : ' (yours)'}.` : 'No policy of theirs is limited by address.'}</span>
        </form>
        {v.policies.length === 0 ? <p className="muted">No policies: they may do nothing beyond what every signed-in user may.</p> : (
          <table className="grid access-table policies-table">
            <caption className="visually-hidden">Their policies</caption>
            <thead><tr><th scope="col">Policy</th><th scope="col">Grants</th><th scope="col">IP ranges</th><th scope="col">Applies</th></tr></thead>
            <tbody>
              {v.policies.map((p) => (
                <tr key={p.id}>
                  <td><Link href={`/policies/${p.id}/permissions`}>{recordName(p.name)}</Link></td>
                  <td>{p.admin_access ? 'Administrator' : p.app_access ? 'Studio access, permissions' : 'Permissions'}</td>
                  <td>{p.ip_access ? <span className="mono">{p.ip_access.join(', ')}</span> : <span className="muted">Anywhere</span>}</td>
                  <td>{p.applies ? 'Yes' : <strong className="not-applied">No, not from {v.ip ?? 'this address'}</strong>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <Permissions view={v} />
    </>
  );
}

const ACCESS_WORD: Record<ActionAccess['access'], string> = { full: 'All items', partial: 'Filtered' };

function Permissions({ view }: { view: ViewAs }) {
  const [search, setSearch] = useState('');
  const [system, setSystem] = useState(false);
  const term = search.trim().toLowerCase();
  const names = useMemo(() => Object.keys(view.permissions).sort(), [view.permissions]);
  const ownCount = names.filter((n) => !n.startsWith('svc_')).length;
  const shown = names.filter((n) => (system || !n.startsWith('svc_')) && (!term || n.toLowerCase().includes(term) || titleOf(n).toLowerCase().includes(term)));
  return (
    <section className="access-card" aria-labelledby="perms-title">
      <div className="card-head">
        <h2 id="perms-title">Permissions</h2>
        <span className="muted">{ownCount} of the project's collections{view.globals.admin_access ? ' (all: administrator)' : ''}</span>
      </div>
      <div className="actions-row">
        <input type="search" aria-label="Find a collection in their permissions" placeholder="Find a collection" value={search} onChange={(e) => setSearch(e.target.value)} className="narrow-search" />
        <label className="check-line"><input type="checkbox" checked={system} onChange={(e) => setSystem(e.target.checked)} /> Include system collections</label>
      </div>
      {shown.length === 0 ? <p className="muted">{names.length === 0 ? 'They may not use any collection.' : 'No collection matches.'}</p> : (
        <div className="table-wrap">
          <table className="grid access-table resolved-table">
            <caption className="visually-hidden">What they may do, by collection</caption>
            <thead><tr><th scope="col">Collection</th><th scope="col">Action</th><th scope="col">Items</th><th scope="col">Fields</th><th scope="col">Validation and presets</th></tr></thead>
            {shown.map((name) => {
              const actions = ACTIONS.filter((a) => view.permissions[name][a]);
              return (
                <tbody key={name}>
                  {actions.map((a, i) => {
                    const p = view.permissions[name][a]!;
                    return (
                      <tr key={a}>
                        {i === 0 && <th scope="rowgroup" rowSpan={actions.length} className="resolved-collection">{titleOf(name)}<span className="mono muted">{name}</span></th>}
                        <td>{ACTION_LABEL[a]}</td>
                        <td className="wrap">{p.permissions ? <span><span className="badge badge-quiet">{ACCESS_WORD[p.access]}</span> {describeFilter(p.permissions)}</span> : ACCESS_WORD[p.access]}</td>
                        <td className="wrap">{p.fields.includes('*') ? 'All fields' : p.fields.join(', ') || <span className="muted">None</span>}</td>
                        <td className="wrap">
                          {p.validation ? <div>Must match: {describeFilter(p.validation)}</div> : null}
                          {p.presets && Object.keys(p.presets).length > 0 ? <div>Presets: {Object.entries(p.presets).map(([k, val]) => `${titleOf(k)} = ${typeof val === 'string' ? val : JSON.stringify(val)}`).join(', ')}</div> : null}
                          {!p.validation && !(p.presets && Object.keys(p.presets).length > 0) && <span className="muted">—</span>}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              );
            })}
          </table>
        </div>
      )}
    </section>
  );
}
