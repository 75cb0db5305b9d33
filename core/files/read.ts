/** Reading file rows under the caller's permissions: incomplete resumable uploads (tus_id not null) are not
 * files yet, so lists leave them out and single reads answer them as missing. */
import type { ServiceContext } from '../context.ts';
import { resolvePermission } from '../access/permissions.ts';
import { ForbiddenError } from '../errors.ts';
import { readItemData, readItems, type QueryInput } from '../items/read.ts';
import type { Filter, Query } from '../query/types.ts';
import { FILES } from './records.ts';
import { fileRow } from './rows.ts';
import { selectIncompleteIds } from './table.ts';

const COMPLETE: Filter = { tus_id: { _null: true } };

function system(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true };
}

/** Most incomplete uploads left out by key for a caller that may not filter on tus_id (they expire within
 * TUS_UPLOAD_EXPIRATION, so there are few). */
const MAX_HIDDEN_BY_KEY = 10_000;

/** The condition leaving incomplete uploads out, as this caller may state it: on tus_id when it may read it
 * (cacheable), else by key. Null when there is nothing to leave out. */
async function hidingFilter(ctx: ServiceContext): Promise<{ filter: Filter | null; cacheable: boolean }> {
  const permission = ctx.accountability.admin ? null : await resolvePermission(system(ctx), FILES, 'read');
  if (!permission || permission.fields === null || permission.fields.has('tus_id') || permission.fields.has('*')) {
    return { filter: COMPLETE, cacheable: true };
  }
  const hidden = await selectIncompleteIds(ctx.db, MAX_HIDDEN_BY_KEY);
  return { filter: hidden.length ? { id: { _nin: hidden } } : null, cacheable: false };
}

function and(query: Query, filter: Filter | null): Query {
  if (!filter) return query;
  return { ...query, filter: query.filter ? { _and: [query.filter, filter] } : filter };
}

/** total_count counts the collection's rows the caller may read: the incomplete uploads are taken out of it
 * too (the count of the hiding filter alone, spliced into the meta object that ends the response). */
async function withCompleteTotal(ctx: ServiceContext, text: string, hide: { filter: Filter | null; cacheable: boolean }): Promise<string> {
  const at = text.lastIndexOf(',"meta":');
  if (at < 0 || !hide.filter) return text;
  const meta = JSON.parse(text.slice(at + 8, -1)) as Record<string, number>;
  if (meta.total_count === undefined) return text;
  const counted = await readItems(system(ctx), FILES, {
    query: { filter: hide.filter, limit: 0, meta: ['filter_count'] },
    cacheKey: hide.cacheable ? 'complete-files-total' : undefined,
  });
  const c = counted.lastIndexOf(',"meta":');
  meta.total_count = (JSON.parse(counted.slice(c + 8, -1)) as { filter_count: number }).filter_count;
  return `${text.slice(0, at)},"meta":${JSON.stringify(meta)}}`;
}

/** GET /files: `{"data":[...],"meta"?}` as JSON text, incomplete resumable uploads left out (meta included). */
export async function listFiles(ctx: ServiceContext, input: QueryInput): Promise<string> {
  const raw = input.query;
  const parsed = (): Query => (typeof raw === 'function' ? raw() : raw);
  const hide = await hidingFilter(ctx);
  const text = await readItems(system(ctx), FILES, hide.cacheable
    ? { query: () => and(parsed(), hide.filter), cacheKey: input.cacheKey === undefined ? undefined : `complete-files|${input.cacheKey}` }
    : { query: and(parsed(), hide.filter) });
  return withCompleteTotal(ctx, text, hide);
}

/** The JSON text of one complete file the caller may read, or null. */
export async function readFileData(ctx: ServiceContext, id: string, input: QueryInput): Promise<string | null> {
  const row = await fileRow(ctx, id);
  if (!row || row.tus_id !== null) return null;
  return readItemData(system(ctx), FILES, id, input);
}

/** GET /files/{id}: a missing, incomplete or invisible file is FORBIDDEN, as items are. */
export async function readFile(ctx: ServiceContext, id: string, input: QueryInput): Promise<string> {
  const data = await readFileData(ctx, id, input);
  if (data === null) throw new ForbiddenError();
  return `{"data":${data}}`;
}

/** The written records as the caller may read them (JSON text), or null when it may read none. */
export async function fileRecords(ctx: ServiceContext, keys: string | string[], input: QueryInput): Promise<string | null> {
  const list = Array.isArray(keys) ? keys : [keys];
  const texts: string[] = [];
  for (const key of list) {
    try {
      const text = await readFileData(ctx, key, input);
      if (text !== null) texts.push(text);
    } catch (err) {
      if (!(err instanceof ForbiddenError)) throw err;
    }
  }
  if (Array.isArray(keys)) return texts.length === 0 ? null : `[${texts.join(',')}]`;
  return texts[0] ?? null;
}
