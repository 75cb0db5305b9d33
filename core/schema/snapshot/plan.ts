/** The ordered steps that take a schema from one set of parts to another, each a call of the schema service inside
 * the one transaction of an apply:
 *  1. new collections, folders before what they hold, each table with its new fields;
 *  2. new fields of existing collections;
 *  3. relations that go away or point elsewhere now (before their columns change type or go);
 *  4. changed collection settings; 5. changed fields (in place: a type change is a cast, never drop + add);
 *  6. new relations (every collection and field they name exists by now); 7. changed relations;
 *  8. dropped fields; 9. dropped collections, what a folder holds before the folder. */
import { InvalidPayloadError } from '../../errors.ts';
import { addCollection, changeCollections, dropCollection } from '../ddl/collections.ts';
import type { DdlScope } from '../ddl/context.ts';
import { addField, changeField, dropField } from '../ddl/fields.ts';
import { parseFieldInput } from '../ddl/columns.ts';
import { addRelation, changeRelation, dropRelation } from '../ddl/relations.ts';
import type { CollectionObject, FieldObject, RelationObject } from '../ddl/shapes.ts';
import { stableJson } from './snapshot.ts';
import type { SchemaParts } from './diff.ts';

export interface PlanStep {
  /** What the step does, in words (a dry run lists them). */
  label: string;
  /** The steps of one phase (1-9 above) don't depend on each other: they run against the overview read when the
   * phase began. A drop's cascade does reach other objects, so each drop sees what the drops before it left. */
  phase: number;
  fresh?: boolean;
  run(scope: DdlScope): Promise<void>;
}

const same = (a: unknown, b: unknown): boolean => stableJson(a) === stableJson(b);

/** Column properties an apply changes; the rest follow from the type and the relations (name, data_type, foreign
 * keys) or can't change in place. */
const CHANGEABLE_COLUMN = ['default_value', 'max_length', 'numeric_precision', 'numeric_scale', 'is_nullable', 'is_unique', 'is_indexed'] as const;
const FIXED_COLUMN = ['is_primary_key', 'has_auto_increment', 'is_generated', 'generation_expression'] as const;

function metaBody(meta: Record<string, unknown> | null): Record<string, unknown> {
  const { id: _id, collection: _c, field: _f, ...rest } = meta ?? {};
  return rest;
}

/** Folders first: a collection after the collection its meta.group names, when that one is also in `names`. */
function parentsFirst(names: string[], groupOf: (name: string) => string | null): string[] {
  const wanted = new Set(names);
  const out: string[] = [];
  const placed = new Set<string>();
  const place = (name: string, depth: number): void => {
    if (placed.has(name) || depth > 64) return;
    const parent = groupOf(name);
    if (parent && wanted.has(parent) && parent !== name) place(parent, depth + 1);
    placed.add(name);
    out.push(name);
  };
  for (const n of [...names].sort()) place(n, 0);
  return out;
}

const groupOfCollection = (c: CollectionObject | undefined): string | null => (typeof c?.meta?.group === 'string' ? c.meta.group : null);

function fieldInput(f: FieldObject): Record<string, unknown> {
  return { field: f.field, type: f.type, meta: metaBody(f.meta), schema: f.schema };
}

function fieldChange(from: FieldObject, to: FieldObject): Record<string, unknown> | null {
  const body: Record<string, unknown> = {};
  if (from.type !== to.type) body.type = to.type;
  if (!same(from.meta, to.meta)) {
    if (to.meta === null) throw new InvalidPayloadError(`Field "${to.collection}.${to.field}": its settings can be changed but not removed.`);
    body.meta = metaBody(to.meta);
  }
  if ((from.schema === null) !== (to.schema === null)) {
    throw new InvalidPayloadError(`Field "${to.collection}.${to.field}" can't change between an alias and a database column.`);
  }
  if (from.schema && to.schema) {
    for (const key of FIXED_COLUMN) {
      if (!same(from.schema[key] ?? null, to.schema[key] ?? null)) {
        throw new InvalidPayloadError(`Field "${to.collection}.${to.field}": "${key}" can't be changed in place.`);
      }
    }
    const schema: Record<string, unknown> = {};
    for (const key of CHANGEABLE_COLUMN) if (!same(from.schema[key] ?? null, to.schema[key] ?? null)) schema[key] = to.schema[key] ?? null;
    // A type or length change needs the lengths the field ends with.
    if (body.type !== undefined || 'max_length' in schema || 'numeric_precision' in schema || 'numeric_scale' in schema) {
      for (const key of ['max_length', 'numeric_precision', 'numeric_scale'] as const) {
        if (typeof to.schema[key] === 'number') schema[key] = to.schema[key];
      }
    }
    if (Object.keys(schema).length) body.schema = schema;
  }
  return Object.keys(body).length ? body : null;
}

function relationBody(r: RelationObject): Record<string, unknown> {
  return {
    collection: r.collection, field: r.field, related_collection: r.related_collection ?? null, meta: metaBody(r.meta),
    schema: r.schema === null ? null : { on_delete: r.schema?.on_delete ?? 'SET NULL', on_update: r.schema?.on_update ?? 'NO ACTION' },
  };
}

function relationMoved(a: RelationObject, b: RelationObject): boolean {
  return (a.related_collection ?? null) !== (b.related_collection ?? null) || (a.schema === null) !== (b.schema === null);
}

export function planSteps(current: SchemaParts, desired: SchemaParts): PlanStep[] {
  const steps: PlanStep[] = [];
  const fieldsOf = (parts: SchemaParts, collection: string): FieldObject[] => [...parts.fields.values()].filter((f) => f.collection === collection);

  // 1. New collections, each with its new fields.
  const added = [...desired.collections.keys()].filter((n) => !current.collections.has(n));
  for (const name of parentsFirst(added, (n) => groupOfCollection(desired.collections.get(n)))) {
    const c = desired.collections.get(name)!;
    const folder = c.schema === null;
    const fields = folder ? [] : fieldsOf(desired, name).sort((a, b) => Number(Boolean(b.schema?.is_primary_key)) - Number(Boolean(a.schema?.is_primary_key)));
    if (folder && fieldsOf(desired, name).length) throw new InvalidPayloadError(`Collection "${name}" is a folder and can't have fields.`);
    steps.push({
      phase: 1,
      label: folder ? `create folder ${name}` : `create collection ${name} (${fields.map((f) => f.field).join(', ')})`,
      run: async (scope) => {
        await addCollection(scope, { collection: name, meta: metaBody(c.meta), schema: folder ? null : {}, fields: fields.map(fieldInput) });
      },
    });
  }

  // 2. New fields of collections that exist.
  for (const [key, f] of desired.fields) {
    if (current.fields.has(key) || !current.collections.has(f.collection)) continue;
    steps.push({
      phase: 2,
      label: `add field ${f.collection}.${f.field} (${f.type})`,
      run: async ({ trx, schema, indexJobs }) => addField(trx, schema, f.collection, parseFieldInput(fieldInput(f)), indexJobs),
    });
  }

  // 3. Relations that go away, or are made again below because they point elsewhere now.
  for (const [key, r] of current.relations) {
    const next = desired.relations.get(key);
    if (next && !relationMoved(r, next)) continue;
    // Dropping the field or the collection removes its relation with it.
    if (!desired.collections.has(r.collection) || !desired.fields.has(key)) continue;
    steps.push({ phase: 3, label: `delete relation ${r.collection}.${r.field}`, run: (scope) => dropRelation(scope, r.collection, r.field) });
  }

  // 4. Changed collection settings.
  for (const [name, c] of desired.collections) {
    const was = current.collections.get(name);
    if (!was) continue;
    if ((was.schema === null) !== (c.schema === null)) {
      throw new InvalidPayloadError(`Collection "${name}" can't change between a folder and a table.`);
    }
    if (same(was.meta, c.meta)) continue;
    if (c.meta === null) throw new InvalidPayloadError(`Collection "${name}": its settings can be changed but not removed.`);
    const meta = metaBody(c.meta);
    steps.push({ phase: 4, label: `change collection ${name}`, run: (scope) => changeCollections(scope, [{ collection: name, body: { meta } }]) });
  }

  // 5. Changed fields, in place.
  for (const [key, f] of desired.fields) {
    const was = current.fields.get(key);
    if (!was) continue;
    const body = fieldChange(was, f);
    if (!body) continue;
    const what = Object.keys(body).map((k) => (k === 'schema' ? Object.keys(body.schema as object).join(', ') : k)).join(', ');
    steps.push({ phase: 5, label: `change field ${f.collection}.${f.field} (${what})`, run: (scope) => changeField(scope, f.collection, f.field, body) });
  }

  // 6. New relations, and those made again.
  for (const [key, r] of desired.relations) {
    const was = current.relations.get(key);
    if (was && !relationMoved(was, r)) continue;
    steps.push({
      phase: 6,
      label: `create relation ${r.collection}.${r.field}${r.related_collection ? ` -> ${r.related_collection}` : ' (many-to-any)'}`,
      run: async (scope) => { await addRelation(scope, relationBody(r)); },
    });
  }

  // 7. Changed relations.
  for (const [key, r] of desired.relations) {
    const was = current.relations.get(key);
    if (!was || relationMoved(was, r)) continue;
    const actionsSame = same(was.schema?.on_delete, r.schema?.on_delete) && same(was.schema?.on_update, r.schema?.on_update);
    if (actionsSame && same(was.meta, r.meta)) continue;
    const body = relationBody(r);
    steps.push({
      phase: 7,
      label: `change relation ${r.collection}.${r.field}`,
      run: (scope) => changeRelation(scope, r.collection, r.field, { meta: body.meta, ...(actionsSame ? {} : { schema: body.schema }) }),
    });
  }

  // 8. Dropped fields of collections that stay (a field another drop already took is skipped).
  for (const [key, f] of current.fields) {
    if (desired.fields.has(key) || !desired.collections.has(f.collection)) continue;
    steps.push({
      phase: 8, fresh: true,
      label: `delete field ${f.collection}.${f.field}`,
      run: async (scope) => {
        if (scope.schema.collections[f.collection]?.fields[f.field]) await dropField(scope, f.collection, f.field);
      },
    });
  }

  // 9. Dropped collections: what a folder holds first.
  const removed = [...current.collections.keys()].filter((n) => !desired.collections.has(n));
  for (const name of parentsFirst(removed, (n) => groupOfCollection(current.collections.get(n))).reverse()) {
    steps.push({ phase: 9, fresh: true, label: `delete collection ${name}`, run: (scope) => dropCollection(scope, name) });
  }
  return steps;
}

