/** A schema snapshot: the user collections (folders too), their fields and their relations in Directus' snapshot
 * shape, in a stable order with the generated ids left out, so the same schema gives the same file on any database.
 * Its hash is what a diff is made against: apply refuses a diff whose hash no longer matches. */
import { createHash } from 'node:crypto';
import pkg from '../../../package.json' with { type: 'json' };
import type { Executor } from '../../db/database.ts';
import { readCollectionMetaRows, readFieldMetaRows } from '../ddl/meta.ts';
import { isSystemCollection } from '../ddl/names.ts';
import { collectionObject, fieldObject, relationObject, type CollectionObject, type FieldObject, type RelationObject } from '../ddl/shapes.ts';
import type { SchemaOverview } from '../types.ts';

export const SNAPSHOT_VERSION = 1;

export interface SchemaSnapshot {
  version: number;
  /** The server version that wrote it. */
  svc?: string;
  vendor?: string;
  collections: CollectionObject[];
  fields: FieldObject[];
  relations: RelationObject[];
  /** Configuration sections, only those asked for (config/index.ts); absent = none managed. */
  config?: Record<string, unknown>;
}

type Row = Record<string, unknown>;

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function withoutId(meta: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!meta) return null;
  const { id: _id, ...rest } = meta;
  return rest;
}

/** Which collections a snapshot holds (Directus' includeCollections / excludeCollections); all when left out. */
export interface SnapshotScope { include?: string[]; exclude?: string[] }

/** The snapshot of `schema`, with the metadata rows read through `ex` (a schema change's transaction, or the pool). */
export async function readSnapshot(ex: Executor, schema: SchemaOverview, scope: SnapshotScope = {}): Promise<SchemaSnapshot> {
  const collectionRows = new Map((await readCollectionMetaRows(ex)).map((r: Row) => [r.collection as string, r]));
  const fieldRows = new Map((await readFieldMetaRows(ex)).map((r: Row) => [`${r.collection}.${r.field}`, r]));
  const include = scope.include && new Set(scope.include);
  const exclude = new Set(scope.exclude ?? []);
  const names = Object.keys(schema.collections)
    .filter((c) => !isSystemCollection(c) && (!include || include.has(c)) && !exclude.has(c))
    .sort(byName);
  const named = new Set(names);
  const collections = names.map((name) => {
    const c = collectionObject(name, schema.collections[name], collectionRows.get(name));
    return { ...c, meta: c.meta && { ...c.meta } };
  });
  const fields: FieldObject[] = [];
  for (const name of names) {
    const col = schema.collections[name];
    for (const f of Object.values(col.fields).sort((a, b) => byName(a.field, b.field))) {
      const o = fieldObject(schema, name, f, fieldRows.get(`${name}.${f.field}`));
      fields.push({ ...o, meta: withoutId(o.meta) });
    }
  }
  const relations = schema.relations
    .filter((r) => named.has(r.collection))
    .map((r) => {
      const o = relationObject(schema, r);
      return { ...o, meta: withoutId(o.meta) };
    })
    .sort((a, b) => byName(a.collection, b.collection) || byName(a.field, b.field));
  return { version: SNAPSHOT_VERSION, svc: pkg.version, vendor: 'postgres', collections, fields, relations };
}

/** JSON with object keys sorted, so equal values give equal text whatever order their keys were built in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => byName(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The hash of what a snapshot describes (not of who wrote it or when). */
export function snapshotHash(s: Pick<SchemaSnapshot, 'collections' | 'fields' | 'relations' | 'config'>): string {
  // The configuration sections a diff manages are part of what it was made against; without any, the hash is the
  // schema's alone, as before.
  const config = s.config && Object.keys(s.config).length ? { config: s.config } : {};
  return createHash('sha256').update(stableJson({ collections: s.collections, fields: s.fields, relations: s.relations, ...config })).digest('hex');
}
