/** The metadata rows behind collections (svc_collections) and fields (svc_fields): which keys a payload may
 * set, their value checks, and parameterised upserts. Unknown keys are ignored, as Directus does. */
import { run, type Executor } from '../../db/database.ts';
import { InvalidPayloadError } from '../../errors.ts';
import { isPlainObject } from './names.ts';

type Kind = 'string' | 'boolean' | 'integer' | 'json' | 'special' | 'scalar';

const COLLECTION_META: Record<string, Kind> = {
  icon: 'string', note: 'string', display_template: 'string', hidden: 'boolean', singleton: 'boolean',
  translations: 'json', archive_field: 'string', archive_app_filter: 'boolean', archive_value: 'scalar',
  unarchive_value: 'scalar', sort_field: 'string', accountability: 'string', color: 'string',
  item_duplication_fields: 'json', sort: 'integer', group: 'string', collapse: 'string', preview_url: 'string',
  versioning: 'boolean', search_index: 'boolean',
};

const FIELD_META: Record<string, Kind> = {
  special: 'special', interface: 'string', options: 'json', display: 'string', display_options: 'json',
  readonly: 'boolean', hidden: 'boolean', sort: 'integer', width: 'string', translations: 'json', note: 'string',
  conditions: 'json', required: 'boolean', group: 'string', validation: 'json', validation_message: 'string',
};

/** Not-null boolean columns: null means "back to the default". */
const BOOLEAN_DEFAULTS: Record<string, boolean> = {
  hidden: false, singleton: false, archive_app_filter: true, versioning: false, readonly: false, search_index: false,
};

interface Assignment { column: string; value: unknown; json: boolean }

export function splitSpecial(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.map(String).map((s) => s.trim()).filter(Boolean);
  if (typeof raw !== 'string' || raw === '') return [];
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

function check(column: string, kind: Kind, value: unknown): Assignment {
  const bad = (expected: string) => new InvalidPayloadError(`"meta.${column}" must be ${expected}.`);
  if (value === null) {
    if (kind === 'boolean' && column in BOOLEAN_DEFAULTS) return { column, value: BOOLEAN_DEFAULTS[column], json: false };
    return { column, value: null, json: kind === 'json' };
  }
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') throw bad('a string');
      return { column, value, json: false };
    case 'scalar':
      if (!['string', 'number', 'boolean'].includes(typeof value)) throw bad('a string');
      return { column, value: String(value), json: false };
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('a boolean');
      return { column, value, json: false };
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw bad('an integer');
      return { column, value, json: false };
    case 'json':
      return { column, value: JSON.stringify(value), json: true };
    case 'special': {
      if (typeof value !== 'string' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
        throw bad('an array of strings');
      }
      const list = splitSpecial(value);
      return { column, value: list.length ? list.join(',') : null, json: false };
    }
  }
}

function assignments(spec: Record<string, Kind>, meta: Record<string, unknown>): Assignment[] {
  const out: Assignment[] = [];
  for (const [key, value] of Object.entries(meta)) {
    const kind = spec[key];
    if (kind && value !== undefined) out.push(check(key, kind, value));
  }
  return out;
}

export function requireMetaObject(value: unknown, what = 'meta'): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) throw new InvalidPayloadError(`"${what}" must be an object.`);
  return value;
}

export function validateAccountability(meta: Record<string, unknown>): void {
  const a = meta.accountability;
  if (a !== undefined && a !== null && a !== 'all' && a !== 'activity') {
    throw new InvalidPayloadError('"meta.accountability" must be "all", "activity" or null.');
  }
}

function quoted(column: string): string {
  return `"${column}"`; // columns come from the fixed specs above
}

async function insertRow(ex: Executor, table: string, keys: Record<string, unknown>, values: Assignment[]): Promise<void> {
  const cols = [...Object.keys(keys).map(quoted), ...values.map((a) => quoted(a.column))];
  const params = [...Object.values(keys), ...values.map((a) => a.value)];
  const placeholders = params.map((_, i) => (i >= Object.keys(keys).length && values[i - Object.keys(keys).length].json ? `$${i + 1}::json` : `$${i + 1}`));
  await run(ex, `insert into ${table} (${cols.join(', ')}) values (${placeholders.join(', ')})`, params);
}

async function updateRow(ex: Executor, table: string, where: Record<string, unknown>, values: Assignment[]): Promise<void> {
  if (values.length === 0) return;
  const sets = values.map((a, i) => `${quoted(a.column)} = $${i + 1}${a.json ? '::json' : ''}`);
  const conds = Object.keys(where).map((k, i) => `${quoted(k)} = $${values.length + i + 1}`);
  await run(ex, `update ${table} set ${sets.join(', ')} where ${conds.join(' and ')}`, [...values.map((a) => a.value), ...Object.values(where)]);
}

export async function insertCollectionMeta(ex: Executor, collection: string, meta: Record<string, unknown>): Promise<void> {
  validateAccountability(meta);
  await insertRow(ex, 'svc_collections', { collection }, assignments(COLLECTION_META, meta));
}

export async function updateCollectionMeta(ex: Executor, collection: string, meta: Record<string, unknown>): Promise<void> {
  validateAccountability(meta);
  await updateRow(ex, 'svc_collections', { collection }, assignments(COLLECTION_META, meta));
}

/** Inserts or updates the svc_fields row; `special` is the full list to store (already merged). */
export async function upsertFieldMeta(ex: Executor, collection: string, field: string, meta: Record<string, unknown>, special: string[] | undefined): Promise<void> {
  const values = assignments(FIELD_META, { ...meta, ...(special ? { special } : {}) });
  const [existing] = await run(ex, 'select id from svc_fields where collection = $1 and field = $2', [collection, field]);
  if (existing) await updateRow(ex, 'svc_fields', { collection, field }, values);
  else await insertRow(ex, 'svc_fields', { collection, field }, values);
}

export async function readFieldMetaRows(ex: Executor, collection?: string): Promise<Record<string, unknown>[]> {
  return collection === undefined
    ? run(ex, 'select * from svc_fields order by collection, sort nulls last, id')
    : run(ex, 'select * from svc_fields where collection = $1 order by sort nulls last, id', [collection]);
}

export async function readCollectionMetaRows(ex: Executor): Promise<Record<string, unknown>[]> {
  return run(ex, 'select * from svc_collections order by sort nulls last, collection');
}

/** One collection's svc_collections row, or null. */
export async function readCollectionMetaRow(ex: Executor, collection: string): Promise<Record<string, unknown> | null> {
  const [row] = await run(ex, 'select * from svc_collections where collection = $1', [collection]);
  return row ?? null;
}
