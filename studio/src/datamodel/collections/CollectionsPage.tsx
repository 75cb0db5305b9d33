/** The data model's first screen: every user collection in its folder, in the order the content navigation shows
 * them (drag, or the arrow keys on a row's handle, to reorder and to move into or out of folders), with create
 * buttons for a collection and a folder; the system collections below, folded. */
import { useState, type CSSProperties, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { titleOf } from '../../content/schema.ts';
import { CollectionIcon } from '../../content/nav/CollectionIcon.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import type { SchemaData } from '../DataModelModule.tsx';
import { api } from '../api.ts';
import { isSystem, type FullCollection } from '../model.ts';
import { ReorderTree, type Move, type ReorderNode } from '../ReorderTree.tsx';
import { useSaveQueue } from '../save-queue.ts';
import { CreateCollectionDialog } from './CreateCollectionDialog.tsx';
import { buildTree, type TreeNode } from './tree.ts';

function toReorder(nodes: TreeNode[]): ReorderNode[] {
  return nodes.map((n) => ({ id: n.name, label: n.name, container: true, movable: true, children: toReorder(n.children) }));
}

export function CollectionsPage({ data }: { data: SchemaData }) {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState<'collection' | 'folder' | null>(null);
  const saves = useSaveQueue(['collections']);
  const tree = buildTree(data.collections);
  const byName = new Map(data.collections.map((c) => [c.collection, c]));
  const fieldCount = new Map<string, number>();
  for (const f of data.fields) fieldCount.set(f.collection, (fieldCount.get(f.collection) ?? 0) + 1);
  const system = data.collections.filter((c) => isSystem(c.collection));

  // The moved collection's new siblings numbered 1..n, shown at once; the server's answer replaces it.
  const onMove = (_id: string, move: Move): void => {
    const changes = move.order.map((collection, i) => ({ collection, meta: { sort: i + 1, group: move.parent } }));
    const byCollection = new Map(changes.map((c) => [c.collection, c.meta]));
    saves.enqueue(() => queryClient.setQueryData<FullCollection[]>(['collections'], (old) => old?.map((c) => {
      const meta = byCollection.get(c.collection);
      return meta ? { ...c, meta: { ...c.meta, ...meta } } : c;
    })), () => api.updateCollections(changes));
  };

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Data model</h1>
        <button type="button" className="btn" onClick={() => setCreating('folder')}>Create folder</button>
        <button type="button" className="btn btn-primary" onClick={() => setCreating('collection')}>Create collection</button>
      </header>
      <div className="page-body dm-page">
        <p className="muted dm-intro">
          Collections hold your content; folders group them in the navigation. Drag a row, or focus its handle and use the arrow keys, to change the order or move it into a folder.
        </p>
        {saves.error !== null && <ErrorNotice error={saves.error} title="The new order was not saved." />}
        {tree.length === 0 ? (
          <div className="dm-empty">
            <p>No collections yet. A collection is a table of items (posts, products, people) with the fields you give it.</p>
            <button type="button" className="btn btn-primary" onClick={() => setCreating('collection')}>Create your first collection</button>
          </div>
        ) : (
          <ReorderTree nodes={toReorder(tree)} label="Collections and folders" onMove={onMove}
            renderRow={(node, handle, depth) => {
              const c = byName.get(node.id)!;
              return <CollectionRow collection={c} handle={handle} depth={depth} fields={fieldCount.get(c.collection) ?? 0} />;
            }} />
        )}
        {system.length > 0 && (
          <details className="dm-system">
            <summary>System collections ({system.length})</summary>
            <p className="muted">They belong to the service. You can add fields of your own to them (to people, files…); their built-in fields and settings stay as they are.</p>
            <ul className="dm-system-list">
              {system.map((c) => (
                <li key={c.collection}><Link href={`/${encodeURIComponent(c.collection)}`} className="mono">{c.collection}</Link></li>
              ))}
            </ul>
          </details>
        )}
      </div>
      {creating && <CreateCollectionDialog kind={creating} data={data} onClose={() => setCreating(null)} />}
    </div>
  );
}

function CollectionRow({ collection: c, handle, fields, depth }: { collection: FullCollection; handle: ReactNode; fields: number; depth: number }) {
  const folder = c.schema === null;
  return (
    <div className="dm-row dm-collection-row" style={{ '--depth': depth } as CSSProperties}>
      {handle}
      <span className="dm-row-icon"><CollectionIcon icon={c.meta?.icon} color={c.meta?.color} folder={folder} name={c.collection} /></span>
      <Link href={`/${encodeURIComponent(c.collection)}`} className="dm-row-name">
        <span className="mono">{c.collection}</span>
      </Link>
      <span className="dm-row-title muted">{titleOf(c.collection)}</span>
      <span className="dm-badges">
        {folder && <span className="badge">Folder</span>}
        {c.meta?.singleton && <span className="badge">Singleton</span>}
        {c.meta?.hidden && <span className="badge">Hidden</span>}
      </span>
      <span className="dm-row-note muted">{c.meta?.note ?? ''}</span>
      <span className="dm-row-count muted">{folder ? '' : `${fields} field${fields === 1 ? '' : 's'}`}</span>
    </div>
  );
}
