/** One collection: its fields (in form order, reorderable, with the create buttons and the relation wizards) and its
 * settings; a folder has settings only. Deleting asks for the collection's name and says what goes with it. */
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { titleOf } from '../../content/schema.ts';
import { CollectionIcon } from '../../content/nav/CollectionIcon.tsx';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import type { SchemaData } from '../DataModelModule.tsx';
import { api, useRefreshSchema } from '../api.ts';
import { isSystem } from '../model.ts';
import { FieldList } from '../fields/FieldList.tsx';
import { SettingsForm } from './SettingsForm.tsx';

export function CollectionPage({ data, collection }: { data: SchemaData; collection: string }) {
  const [deleting, setDeleting] = useState(false);
  const c = data.collections.find((x) => x.collection === collection);
  if (!c) {
    return (
      <div className="main-pane"><div className="page-message">
        <h1>No such collection</h1>
        <p>There is no collection named “{collection}”. It may have been deleted. <Link href="/">All collections</Link></p>
      </div></div>
    );
  }
  const folder = c.schema === null;
  const system = isSystem(collection);
  return (
    <div className="main-pane">
      <header className="page-header">
        <CollectionIcon icon={c.meta?.icon} color={c.meta?.color} folder={folder} name={collection} />
        <h1><span className="mono">{collection}</span> <span className="muted dm-h1-sub">{folder ? 'Folder' : system ? 'System collection' : titleOf(collection)}</span></h1>
        {!folder && !system && <Link className="btn" href={`~/admin/content/${encodeURIComponent(collection)}`}>Open in Content</Link>}
        {!system && <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)}>{folder ? 'Delete folder' : 'Delete collection'}</button>}
      </header>
      <div className="page-body dm-page">
        {!folder && <FieldList data={data} collection={collection} />}
        {system
          ? <p className="muted">The settings of a system collection belong to the service and can’t be changed.</p>
          : <SettingsForm key={collection} data={data} collection={c} />}
      </div>
      {deleting && <DeleteCollectionDialog data={data} collection={collection} onClose={() => setDeleting(false)} />}
    </div>
  );
}

function DeleteCollectionDialog({ data, collection, onClose }: { data: SchemaData; collection: string; onClose(): void }) {
  const [, navigate] = useLocation();
  const refresh = useRefreshSchema();
  const c = data.collections.find((x) => x.collection === collection)!;
  const folder = c.schema === null;
  const children = data.collections.filter((x) => x.meta?.group === collection).map((x) => x.collection);
  // Fields elsewhere that go with it: other collections' relations to it, and the one-to-many aliases on them.
  const touching = new Set<string>();
  for (const r of data.relations) {
    if (r.related_collection === collection && r.collection !== collection) touching.add(`${r.collection}.${r.field}`);
    if (r.collection === collection && r.related_collection && r.related_collection !== collection && r.meta?.one_field) touching.add(`${r.related_collection}.${r.meta.one_field}`);
  }
  const junction = data.relations.some((r) => r.collection === collection && r.meta?.junction_field);
  return (
    <ConfirmDialog title={folder ? `Delete the folder ${collection}?` : `Delete the collection ${collection}?`} confirmLabel={folder ? 'Delete folder' : 'Delete collection'}
      typeToConfirm={collection}
      onConfirm={async () => {
        await api.deleteCollection(collection);
        await refresh();
        onClose();
        navigate('/');
      }}
      onClose={onClose}>
      {folder ? (
        <p>The folder goes from the navigation. It has no table, so no content is lost.</p>
      ) : (
        <p>
          The table <strong className="mono">{collection}</strong> is dropped with <strong>every item in it</strong>, its fields, relations, permissions and saved views.
          This can’t be undone.
        </p>
      )}
      {touching.size > 0 && (
        <p>These fields of other collections point at it and are removed too: {[...touching].map((t) => <span key={t} className="mono dm-inline-code">{t}</span>)}</p>
      )}
      {junction && <p>It is the junction of a many-to-many or many-to-any relation: that relation ends, and its list field goes from the form.</p>}
      {children.length > 0 && (
        <p className="notice notice-warning dm-block-notice">It still holds {children.map((n) => <span key={n} className="mono dm-inline-code">{n}</span>)}. The server refuses to delete it until they are moved out or deleted.</p>
      )}
    </ConfirmDialog>
  );
}
