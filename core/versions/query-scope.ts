/** What a non-admin's standard query on versions may touch: the direct fields of svc_versions only (no
 * relational paths to svc_users or svc_collections, no deep), never the delta in filters, sorts or
 * aggregates (its values are cut to the caller's readable fields only on output), and only versions of
 * items the caller may read (read.ts). */
import { ForbiddenError } from '../errors.ts';
import type { Filter, Query } from '../query/types.ts';
import { VERSION_FIELDS } from './types.ts';

const DIRECT = new Set<string>(VERSION_FIELDS);
const OPAQUE = new Set(['delta']);

function deny(what: string): never {
  throw new ForbiddenError(`You don't have permission to access "${what}" of versions.`);
}

function checkFilter(filter: Filter): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '_and' || key === '_or') {
      if (Array.isArray(value)) for (const part of value) if (part && typeof part === 'object') checkFilter(part as Filter);
      continue;
    }
    if (!DIRECT.has(key) || OPAQUE.has(key)) deny(key);
    if (value && typeof value === 'object') {
      for (const op of Object.keys(value)) if (!op.startsWith('_')) deny(`${key}.${op}`);
    }
  }
}

export function checkVersionQuery(query: Query): void {
  for (const f of query.fields ?? []) if (f !== '*' && !DIRECT.has(f)) deny(f);
  for (const s of query.sort ?? []) {
    const f = s.startsWith('-') ? s.slice(1) : s;
    if (!DIRECT.has(f) || OPAQUE.has(f)) deny(f);
  }
  if (query.deep && Object.keys(query.deep).length > 0) deny('deep');
  for (const list of Object.values(query.aggregate ?? {})) for (const f of list ?? []) if (f !== '*' && (!DIRECT.has(f) || OPAQUE.has(f))) deny(f);
  for (const f of query.groupBy ?? []) if (!DIRECT.has(f) || OPAQUE.has(f)) deny(f);
  if (query.filter) checkFilter(query.filter);
}
