/** A version compared with the main item, field by field (GET /versions/{id}/compare): plain values side by side,
 * relations in words ("adds 2 tags: science, history; removes 1: computing"), a warning when the item changed after
 * the draft was last saved, and a sentence for new content. Fetches what it shows, so the item editor (in a dialog)
 * and the review task page use it alike. */
import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';
import { ErrorNotice } from '../../../ui/ErrorNotice.tsx';
import { Loading } from '../../../ui/Loading.tsx';
import { useAllFields, useCollections, useRelations } from '../../schema.ts';
import { versionErrorText } from './api.ts';
import { compareLookups, compareRows, type Comparison } from './compare.ts';
import { useLookups } from './lookups.ts';
import './versions.css';

export function compareQueryKey(collection: string, versionId: string) {
  return ['versions', collection, 'compare', versionId];
}

export function CompareView({ versionId, collection, mainLabel = 'Main', draftLabel = 'Draft' }: {
  versionId: string;
  collection: string;
  /** Column headings (e.g. the draft's name). */
  mainLabel?: string;
  draftLabel?: string;
}) {
  const fields = useAllFields();
  const relations = useRelations();
  const collections = useCollections();
  const cmp = useQuery({
    queryKey: compareQueryKey(collection, versionId),
    queryFn: ({ signal }) => request<Comparison>('GET', `/versions/${encodeURIComponent(versionId)}/compare`, { signal }),
  });
  const ctx = useMemo(
    () => (fields.data && relations.data && collections.data ? { allFields: fields.data, relations: relations.data, collections: collections.data } : null),
    [fields.data, relations.data, collections.data],
  );
  const specs = useMemo(() => (ctx && cmp.data ? compareLookups(ctx, collection, cmp.data).list() : []), [ctx, cmp.data, collection]);
  const lookups = useLookups(specs);

  const failed = cmp.error ?? fields.error ?? relations.error ?? collections.error;
  if (failed) {
    return cmp.error
      ? <div className="notice notice-error" role="alert">The comparison could not be loaded: {versionErrorText(cmp.error)}</div>
      : <ErrorNotice error={failed} onRetry={() => { void fields.refetch(); void relations.refetch(); void collections.refetch(); }} />;
  }
  if (!ctx || !cmp.data || !lookups.ready) return <Loading label="Comparing with the item" />;

  const rows = compareRows(ctx, collection, cmp.data, lookups.found);
  const changed = rows.filter((r) => !r.same);
  const same = rows.length - changed.length;
  const isNew = cmp.data.main === null;
  return (
    <div className="compare-view">
      {isNew && <p className="notice">This draft creates a new item: there is no item to compare it with yet.</p>}
      {!isNew && cmp.data.outdated && (
        <p className="notice notice-warning">The item has changed since this draft was last saved. Promoting the draft writes the fields below over those changes.</p>
      )}
      {changed.length === 0 ? (
        <p className="muted">{rows.length === 0 ? 'This draft has no changes yet.' : 'Every field this draft holds has the item’s value.'}</p>
      ) : (
        <div className="table-wrap">
          <table className="grid compare-table">
            <caption className="visually-hidden">Fields this draft changes, with the item’s value and the draft’s</caption>
            <thead><tr><th scope="col">Field</th>{!isNew && <th scope="col">{mainLabel}</th>}<th scope="col">{draftLabel}</th></tr></thead>
            <tbody>
              {changed.map((r) => (
                <tr key={r.field}>
                  <th scope="row">{r.label}</th>
                  {!isNew && <td className="compare-main">{r.main ? r.main : <span className="muted">Empty</span>}</td>}
                  <td className={`compare-draft${r.relational ? ' compare-words' : ''}`}>{r.draft ? r.draft : <span className="muted">Empty</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {same > 0 && changed.length > 0 && <p className="muted compare-same">{same === 1 ? 'One more field' : `${same} more fields`} in the draft {same === 1 ? 'has' : 'have'} the item’s value.</p>}
    </div>
  );
}
