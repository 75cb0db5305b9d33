/** The names the review screens show instead of ids, each kind in one request, all of them in parallel: the items'
 * display titles (one request per collection, only the keys on screen), the drafts' names and statuses, and the
 * people (../../content/item/versions/schedules.ts usePeople). A name the caller may not read stays a neutral
 * wording ("Item 12", "a draft", "another user"); none of these requests holds anything else back. */
import { useQueries, useQuery } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { displayFields, displayOf } from '../../content/item/display.ts';
import { fieldsOf, primaryKeyOf, useAllFields, useCollections } from '../../content/schema.ts';
import { personText, usePeople, type Person } from '../../content/item/versions/schedules.ts';

export interface ItemRef { collection: string; item: string | null }

const key = (collection: string, item: string) => `${collection}\u0000${item}`;

/** Titles of items, by collection and key. */
export function useItemTitles(refs: ItemRef[]): (ref: ItemRef) => string {
  const collections = useCollections();
  const fields = useAllFields();
  const byCollection = new Map<string, Set<string>>();
  for (const r of refs) {
    if (r.item === null) continue;
    if (!byCollection.has(r.collection)) byCollection.set(r.collection, new Set());
    byCollection.get(r.collection)!.add(r.item);
  }
  const groups = [...byCollection].sort((a, b) => a[0].localeCompare(b[0])).map(([c, keys]) => ({ collection: c, keys: [...keys].sort() }));
  const ready = Boolean(collections.data && fields.data);
  const results = useQueries({
    queries: groups.map((g) => {
      const pk = primaryKeyOf(fieldsOf(fields.data, g.collection));
      return {
        queryKey: ['item-names', g.collection, g.keys],
        enabled: ready,
        staleTime: 60_000,
        retry: false,
        queryFn: ({ signal }: { signal: AbortSignal }) => request<Record<string, unknown>[]>('GET', `/items/${encodeURIComponent(g.collection)}`, {
          query: { filter: { [pk]: { _in: g.keys } }, fields: displayFields(g.collection, collections.data), limit: g.keys.length }, signal,
        }).then((rows) => ({ collection: g.collection, pk, rows })),
      };
    }),
  });
  const titles = new Map<string, string>();
  for (const q of results) {
    if (!q.data) continue;
    const own = fieldsOf(fields.data, q.data.collection);
    for (const row of q.data.rows) titles.set(key(q.data.collection, String(row[q.data.pk])), displayOf(row, q.data.collection, collections.data, own, q.data.pk));
  }
  return (ref) => {
    if (ref.item === null) return 'New item';
    return titles.get(key(ref.collection, ref.item)) || `Item ${ref.item}`;
  };
}

export interface DraftInfo { id: string; key: string; name: string | null; status: 'draft' | 'pending' | 'approved' | 'rejected'; user_created: string | null }

/** The drafts (versions) under review: name, status, author (versioning:view; without it, none). */
export function useDrafts(ids: (string | null)[]): Map<string, DraftInfo> {
  const unique = [...new Set(ids.filter((x): x is string => Boolean(x)))].sort();
  const { data } = useQuery({
    queryKey: ['tasks', 'drafts', unique],
    enabled: unique.length > 0,
    retry: false,
    queryFn: ({ signal }) => request<DraftInfo[]>('GET', '/versions', {
      query: { filter: { id: { _in: unique } }, fields: ['id', 'key', 'name', 'status', 'user_created'], limit: unique.length }, signal,
    }),
  });
  return new Map((data ?? []).map((v) => [v.id, v]));
}

export function draftName(d: DraftInfo | undefined): string {
  return d ? `“${d.name || d.key}”` : 'a draft';
}

export { personText, usePeople, type Person };
