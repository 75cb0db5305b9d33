/** Related items by key, for their names: a draft holds relations as keys (its delta is in the API's write shape),
 * and the editor and the compare view name them. One request per related collection and field list, all at once,
 * each for a bounded number of keys (a filter on the primary key, never a whole table). */
import { useQueries } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';

type Row = Record<string, unknown>;
export type Key = string | number;

/** At most this many keys are named per list; the rest are counted ("and 12 more"). */
export const NAMED_LIMIT = 10;

export interface LookupSpec {
  collection: string;
  pk: string;
  fields: string[];
  keys: Key[];
}

/** Rows found, by spec (collection and fields) and then by key as a string. */
export type Found = Map<string, Map<string, Row>>;

export function specId(collection: string, fields: string[]): string {
  return `${collection}|${fields.join(',')}`;
}

/** Where a collection's items are read: system collections have their own endpoints. */
export function readPath(collection: string): string {
  if (collection === 'svc_files') return '/files';
  if (collection === 'svc_users') return '/users';
  return `/items/${encodeURIComponent(collection)}`;
}

/** Collects the keys to look up, merging the keys of one collection and field list into one request. */
export class LookupPlan {
  private specs = new Map<string, LookupSpec>();

  add(collection: string, pk: string, fields: string[], keys: Iterable<Key>): void {
    const id = specId(collection, fields);
    let spec = this.specs.get(id);
    for (const key of keys) {
      spec ??= { collection, pk, fields, keys: [] };
      if (!spec.keys.some((k) => String(k) === String(key))) spec.keys.push(key);
    }
    if (spec) this.specs.set(id, spec);
  }

  list(): LookupSpec[] {
    return [...this.specs.values()].map((s) => ({ ...s, keys: [...s.keys].sort((a, b) => String(a).localeCompare(String(b))) }));
  }
}

/** The rows of every spec, read in parallel. `ready` once all have answered; a failed lookup (no read permission on
 * the related collection, say) leaves its keys unnamed rather than failing the screen. */
export function useLookups(specs: LookupSpec[], enabled = true): { found: Found; ready: boolean } {
  const results = useQueries({
    queries: specs.map((spec) => ({
      queryKey: ['lookup', spec.collection, spec.fields, spec.keys.map(String)],
      enabled,
      staleTime: 60_000,
      queryFn: ({ signal }: { signal: AbortSignal }) => request<Row[]>('GET', readPath(spec.collection), {
        query: { filter: { [spec.pk]: { _in: spec.keys } }, fields: spec.fields, limit: spec.keys.length },
        signal,
      }),
    })),
  });
  const found: Found = new Map();
  specs.forEach((spec, i) => {
    const rows = results[i]?.data ?? [];
    found.set(specId(spec.collection, spec.fields), new Map(rows.map((r) => [String(r[spec.pk]), r])));
  });
  return { found, ready: results.every((r) => !r.isPending || !enabled) };
}

export function foundRow(found: Found, collection: string, fields: string[], key: unknown): Row | undefined {
  if (key === null || key === undefined || typeof key === 'object') return undefined;
  return found.get(specId(collection, fields))?.get(String(key));
}
