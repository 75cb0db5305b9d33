/** /data-model/:collection: one collection's fields and settings (a folder has settings only), and deleting it once
 * its name is typed, with what that drops spelled out. */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { request } from '../api/client.ts';
import { titleOf, useAllFields, useCollections, useRelations } from '../content/schema.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { CollectionSettings } from './CollectionSettings.tsx';
import { kindOf } from './CollectionsPage.tsx';
import { refreshSchema } from './data.ts';
import { FieldsList } from './FieldsList.tsx';

export default function CollectionPage({ collection }: { collection: string }) {
  const collections = useCollections();
  const fields = useAllFields();
  const relations = useRelations();
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const search = useSearch();
  const [deleting, setDeleting] = useState(false);
  const failed = collections.error ?? fields.error ?? relations.error;
  if (failed) return <div className="main-pane"><div className="page-body"><ErrorNotice error={failed} onRetry={() => { void collections.refetch(); void fields.refetch(); void relations.refetch(); }} /></div></div>;
  if (!collections.data || !fields.data || !relations.data) return <Loading label="Loading the collection" />;
  const c = collections.data.find((x) => x.collection === collection);
  if (!c || collection.startsWith('svc_')) {
    return <div className="main-pane"><div className="page-message"><h1>No such collection</h1><p>There is no collection named “{collection}”. <Link href="/">See them all</Link>.</p></div></div>;
  }
  const folder = c.schema === null;
  const tab = folder || new URLSearchParams(search).get('tab') === 'settings' ? 'settings' : 'fields';
  const children = collections.data.filter((x) => x.meta?.group === collection);
  const own = fields.data.filter((f) => f.collection === collection);
  const linked = relations.data.filter((r) => r.related_collection === collection && r.collection !== collection).map((r) => r.collection);

  return (
    <div className="main-pane">
      <header className="page-header">
        <Link href="/" className="btn btn-ghost icon-btn" aria-label="All collections">←</Link>
        <div className="dm-heading">
          <span className="muted dm-crumb">{kindOf(c)} · <span className="mono">{collection}</span></span>
          <h1>{titleOf(collection)}</h1>
        </div>
        {!folder && <Link className="btn" href={`~/admin/content/${encodeURIComponent(collection)}`}>Open in Content</Link>}
        <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)}>Delete {folder ? 'folder' : 'collection'}</button>
      </header>
      {!folder && (
        <nav className="dm-tabs" aria-label="Collection">
          <Link href={`/${encodeURIComponent(collection)}`} aria-current={tab === 'fields' ? 'page' : undefined}>Fields</Link>
          <Link href={`/${encodeURIComponent(collection)}?tab=settings`} aria-current={tab === 'settings' ? 'page' : undefined}>Settings</Link>
        </nav>
      )}
      <div className="page-body">
        {tab === 'fields'
          ? <FieldsList collection={collection} fields={fields.data} relations={relations.data} collections={collections.data} />
          : <CollectionSettings key={collection} collection={c} fields={own} collections={collections.data} />}
      </div>
      {deleting && (
        <ConfirmDialog title={`Delete ${folder ? 'the folder' : 'the collection'} “${titleOf(collection)}”?`} confirmLabel={`Delete ${folder ? 'folder' : 'collection'}`}
          typeToConfirm={collection} onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await request('DELETE', `/collections/${encodeURIComponent(collection)}`);
            await refreshSchema(client);
            navigate('/', { replace: true });
          }}>
          {folder ? <p>The folder goes; the collections in it must be moved out or deleted first.</p> : (
            <>
              <p>The table <span className="mono">{collection}</span> and <strong>every item in it</strong> are deleted, with its {own.length} field{own.length === 1 ? '' : 's'}, its
                relations and the permissions that name it. This cannot be undone.</p>
              {linked.length > 0 && <p>Collections that point to it ({[...new Set(linked)].map(titleOf).join(', ')}) lose those relations.</p>}
            </>
          )}
          {children.length > 0 && <p className="notice notice-warning">It holds {children.map((x) => titleOf(x.collection)).join(', ')}: the server refuses until they are moved out.</p>}
        </ConfirmDialog>
      )}
    </div>
  );
}
