/** /access/policies/:id[/permissions|/app]: one policy, in three parts with their own addresses: its details (name,
 * flags, IP ranges, where it is attached), its permissions (the matrix of collections by actions) and its app
 * permissions (versioning and workflow). Deleting asks for the name; its permissions go with it. */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { preloadable } from '../../app/lazy.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { invalidateAccess, recordName, type PolicyRecord } from '../data.ts';
import { AccessBadges } from '../shared.tsx';
import { AppPermissions } from './AppPermissions.tsx';
import { PolicyDetails } from './PolicyDetails.tsx';

// The matrix (with the filter builder) is the heaviest screen of the module: its code loads on its own.
const PermissionEditor = preloadable<{ policy: PolicyRecord }>(() => import('./PermissionEditor.tsx'), <Loading label="Loading permissions" />);
if (/^\/admin\/access\/policies\/[^/]+\/permissions/.test(location.pathname)) void PermissionEditor.preload();

export type PolicyTab = 'details' | 'permissions' | 'app';

const FIELDS = ['id', 'name', 'icon', 'description', 'admin_access', 'app_access', 'ip_access'];

export default function PolicyPage({ id, tab }: { id: string; tab: PolicyTab }) {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const [deleting, setDeleting] = useState(false);
  const policy = useQuery({
    queryKey: ['access', 'policy', id],
    queryFn: ({ signal }) => request<PolicyRecord>('GET', `/policies/${encodeURIComponent(id)}`, { query: { fields: FIELDS }, signal }),
  });
  if (policy.error) {
    const gone = policy.error instanceof ApiError && policy.error.status === 403;
    return (
      <div className="main-pane">
        <header className="page-header"><h1>Policy</h1></header>
        <div className="page-body">
          {gone ? <div className="notice" role="status"><span>This policy does not exist (any more).</span><Link className="btn btn-small" href="/policies">All policies</Link></div>
            : <ErrorNotice error={policy.error} onRetry={() => void policy.refetch()} />}
        </div>
      </div>
    );
  }
  if (!policy.data) return <div className="main-pane"><Loading label="Loading the policy" /></div>;
  const p = policy.data;
  const title = recordName(p.name);
  const base = `/policies/${encodeURIComponent(p.id)}`;
  const tabs: { key: PolicyTab; label: string; href: string }[] = [
    { key: 'details', label: 'Details', href: base },
    { key: 'permissions', label: 'Permissions', href: `${base}/permissions` },
    { key: 'app', label: 'App permissions', href: `${base}/app` },
  ];
  return (
    <div className="main-pane">
      <header className="page-header record-header">
        <Link className="btn btn-ghost btn-small" href="/policies" aria-label="Back to policies">←</Link>
        <h1>{title}</h1>
        <AccessBadges admin={p.admin_access} app={p.app_access} />
        <span className="header-spacer" />
        <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)}>Delete policy</button>
      </header>
      <nav className="subnav" aria-label={`Parts of ${title}`}>
        {tabs.map((t) => <Link key={t.key} href={t.href} className="subnav-item" aria-current={t.key === tab ? 'page' : undefined}>{t.label}</Link>)}
      </nav>
      {tab === 'details' && <PolicyDetails key={p.id} policy={p} onSaved={async () => { await Promise.all([policy.refetch(), invalidateAccess(client)]); }} />}
      {tab === 'permissions' && <PermissionEditor policy={p} />}
      {tab === 'app' && <AppPermissions policy={p} />}
      {deleting && (
        <ConfirmDialog title={`Delete the policy ${title}?`} confirmLabel="Delete policy" typeToConfirm={p.name} onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await request('DELETE', `/policies/${encodeURIComponent(p.id)}`);
            await invalidateAccess(client);
            navigate('/policies');
          }}>
          <p>Its permissions and app permissions are deleted, and it is detached from every role and user. Their users lose what it granted at once.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
