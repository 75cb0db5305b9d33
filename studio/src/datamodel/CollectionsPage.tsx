/** /data-model: every collection and folder in tree order with what kind it is and how many fields it has, reordered
 * within its folder (the order the content module shows); create a collection (its primary key chosen once) or a
 * folder. */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../api/client.ts';
import { titleOf, useAllFields, useCollections, type Collection } from '../content/schema.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { CreateCollectionDialog } from './CreateCollectionDialog.tsx';
import { refreshSchema } from './data.ts';
import { modelTree, siblingsOf } from './tree.ts';

export function kindOf(c: Collection): string {
  if (c.schema === null) return 'Folder';
  if (c.meta?.singleton) return 'Single item';
  return 'Collection';
}

export default function CollectionsPage() {
  const collections = useCollections();
  const fields = useAllFields();
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState<null | 'collection' | 'folder'>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function move(c: Collection, by: -1 | 1): Promise<void> {
    const siblings = siblingsOf(collections.data ?? [], c.collection);
    const i = siblings.findIndex((s) => s.collection === c.collection);
    const j = i + by;
    if (j < 0 || j >= siblings.length || busy) return;
    const order = [...siblings];
    [order[i], order[j]] = [order[j], order[i]];
    setBusy(true);
    setError(null);
    try {
      await request('PATCH', '/collections', { body: order.map((s, n) => ({ collection: s.collection, meta: { sort: n + 1 } })) });
      await refreshSchema(client);
      requestAnimationFrame(() => document.getElementById(`move-${c.collection}-${by < 0 ? 'up' : 'down'}`)?.focus());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const count = (name: string): number => (fields.data ?? []).filter((f) => f.collection === name).length;
  const rows = collections.data ? modelTree(collections.data) : [];
  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Data model</h1>
        <button type="button" className="btn" onClick={() => setCreating('folder')}>Create folder</button>
        <button type="button" className="btn btn-primary" onClick={() => setCreating('collection')}>Create collection</button>
      </header>
      <div className="page-body dm-stack">
        {error !== null && <ErrorNotice error={error} title="Not moved:" />}
        {collections.error ? <ErrorNotice error={collections.error} onRetry={() => void collections.refetch()} />
          : !collections.data ? <Loading label="Loading collections" />
            : rows.length === 0 ? (
              <div className="dm-empty">
                <p><strong>No collections yet.</strong></p>
                <p className="muted">A collection is a table of items (articles, authors, products). Create one, then add its fields.</p>
              </div>
            ) : (
              <div className="table-wrap">
                <table className="grid dm-table">
                  <caption className="visually-hidden">Collections</caption>
                  <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col" className="num">Fields</th><th scope="col">Note</th><th scope="col">Order</th></tr></thead>
                  <tbody>
                    {rows.map(({ collection: c, depth }) => {
                      const siblings = siblingsOf(collections.data!, c.collection);
                      const at = siblings.findIndex((s) => s.collection === c.collection);
                      const label = titleOf(c.collection);
                      return (
                        <tr key={c.collection}>
                          <td className={`dm-depth-${Math.min(depth, 4)}`}>
                            <Link className="row-link dm-name" href={`/${encodeURIComponent(c.collection)}`}>{label}</Link>
                            <span className="mono muted dm-key">{c.collection}</span>
                            {c.meta?.hidden && <span className="badge">Hidden</span>}
                          </td>
                          <td>{kindOf(c)}</td>
                          <td className="num">{c.schema === null ? '—' : count(c.collection)}</td>
                          <td className="dm-note">{c.meta?.note ?? ''}</td>
                          <td className="dm-order">
                            <button type="button" id={`move-${c.collection}-up`} className="btn btn-small btn-ghost icon-btn" aria-label={`Move ${label} up`} disabled={at <= 0 || busy}
                              onClick={() => void move(c, -1)}>↑</button>
                            <button type="button" id={`move-${c.collection}-down`} className="btn btn-small btn-ghost icon-btn" aria-label={`Move ${label} down`}
                              disabled={at < 0 || at >= siblings.length - 1 || busy} onClick={() => void move(c, 1)}>↓</button>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
      </div>
      {creating && <CreateCollectionDialog folder={creating === 'folder'} onClose={() => setCreating(null)} onCreated={(name) => { setCreating(null); navigate(`/${encodeURIComponent(name)}`); }} />}
    </div>
  );
}
