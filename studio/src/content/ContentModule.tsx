/** /admin/content: the collections the caller may read. */
import { Link } from 'wouter';
import { useSession } from '../app/session.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { can, titleOf, useCollections, usePermissions, usePolicyGlobals } from './schema.ts';

export default function ContentModule() {
  const collections = useCollections();
  const perms = usePermissions();
  const globals = usePolicyGlobals();
  useSession();
  if (collections.error || perms.error || globals.error) return <ErrorNotice error={collections.error ?? perms.error ?? globals.error} onRetry={() => { void collections.refetch(); void perms.refetch(); void globals.refetch(); }} />;
  if (!collections.data || !perms.data || !globals.data) return <Loading label="Loading collections" />;
  const admin = globals.data.admin_access;
  const readable = collections.data.filter((c) => c.schema && !c.collection.startsWith('svc_') && can(perms.data, admin, c.collection, 'read'));
  return (
    <div className="main-pane">
      <header className="page-header"><h1>Content</h1></header>
      <div className="page-body">
        {readable.length === 0 ? <p className="muted">No collections to show yet.</p> : (
          <ul className="nav-list" aria-label="Collections">
            {readable.map((c) => <li key={c.collection}><Link className="nav-item" href={`/${c.collection}`}>{titleOf(c.collection)}</Link></li>)}
          </ul>
        )}
      </div>
    </div>
  );
}
