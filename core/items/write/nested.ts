/** Relational writes nested in a payload, in Directus' shapes (all inside the parent's transaction):
 * - M2O / A2O: a key (link), an object with an existing key (update it, link), another object (create, link), null (unlink);
 * - O2M: an array of keys and/or objects (link / create / update; children not listed are deselected),
 *   or `{create, update, delete}`. M2M and M2A are O2M to a junction whose rows nest an M2O / A2O. */
import { ident, run } from '../../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import { checkDepth } from './context.ts';
import { createOne, insertPrepared, validateCreate } from './create.ts';
import { insertBatch } from './batch.ts';
import { isFlat } from './fast.ts';
import { deleteMany } from './delete.ts';
import { keyArrayCast, keyOf, primaryField, unique } from './keys.ts';
import { isPlainObject, type PreparedPayload, type ToManyWrite } from './payload.ts';
import { SortSequence } from './sort.ts';
import { keyFromRow } from './sql.ts';
import type { Payload, PrimaryKey, WriteContext } from './types.ts';
import { updateMany } from './update.ts';
import { emitItems, filterItems } from './events.ts';
import { checkShareCreate, checkShareUpdate, SHARES } from '../../shares/mint.ts';

async function exists(w: WriteContext, collection: CollectionOverview, key: PrimaryKey): Promise<boolean> {
  const pk = ident(collection.primary!);
  const rows = await run(w.trx, `select 1 from ${ident(collection.collection)} where ${pk} = $1`, [key]);
  return rows.length > 0;
}

/** Nested rows are item writes of their own collection: they pass its filter events and emit its action events
 * (after the parent's transaction commits), as Directus' nested ItemsService calls do. */
async function nestedCreate(w: WriteContext, related: CollectionOverview, payload: Payload, depth: number): Promise<PrimaryKey> {
  const data = await filterItems(w.service, 'create', related.collection, payload);
  // A share written through a relation obeys the rules of POST /shares.
  if (related.collection === SHARES) await checkShareCreate(w.service, data);
  const key = await createOne(w, related, data, depth);
  emitItems(w.service, 'create', related.collection, [key], data);
  return key;
}

/** New children of a new parent, as Directus' createMany of them: each passes its filter event and its checks
 * first, then flat ones are one multi-row insert (a child with relations of its own is written one by one). */
async function nestedCreateMany(w: WriteContext, related: CollectionOverview, payloads: Payload[], depth: number): Promise<PrimaryKey[]> {
  checkDepth(w, depth);
  const data: Payload[] = [];
  for (const payload of payloads) data.push(await filterItems(w.service, 'create', related.collection, payload));
  const prepared: PreparedPayload[] = [];
  for (const item of data) prepared.push(await validateCreate(w, related, item));
  let keys: PrimaryKey[];
  if (prepared.every(isFlat)) keys = await insertBatch(w, related, prepared);
  else {
    keys = [];
    for (const item of prepared) keys.push(await insertPrepared(w, related, item, depth));
  }
  keys.forEach((key, i) => emitItems(w.service, 'create', related.collection, [key], data[i]));
  return keys;
}

async function nestedUpdate(w: WriteContext, related: CollectionOverview, keys: PrimaryKey[], payload: Payload, depth: number): Promise<PrimaryKey[]> {
  const data = await filterItems(w.service, 'update', related.collection, payload, { keys });
  if (related.collection === SHARES) await checkShareUpdate(w.service, keys.map((key) => ({ key: String(key), data })));
  const written = await updateMany(w, related, keys, data, depth);
  emitItems(w.service, 'update', related.collection, written, data);
  return written;
}

async function nestedDelete(w: WriteContext, related: CollectionOverview, keys: PrimaryKey[]): Promise<PrimaryKey[]> {
  const list = await filterItems(w.service, 'delete', related.collection, keys);
  const deleted = await deleteMany(w, related, list);
  emitItems(w.service, 'delete', related.collection, deleted, deleted);
  return deleted;
}

/** Directus' upsert of a nested object: update when its key names an existing row, else create. */
async function upsertRelated(w: WriteContext, related: CollectionOverview, value: Payload, depth: number): Promise<PrimaryKey> {
  const pkName = related.primary!;
  const raw = Object.hasOwn(value, pkName) ? value[pkName] : null;
  if (raw !== null && raw !== undefined) {
    const key = keyOf(primaryField(related), raw);
    if (key !== null && await exists(w, related, key)) {
      if (Object.keys(value).length > 1) await nestedUpdate(w, related, [key], value, depth);
      return key;
    }
  }
  return nestedCreate(w, related, value, depth);
}

/** Writes the M2O / A2O objects of a payload and puts their keys into its columns. */
export async function writeToOne(w: WriteContext, prepared: PreparedPayload, depth: number): Promise<void> {
  for (const t of prepared.toOne) {
    const key = await upsertRelated(w, t.related, t.value, depth + 1);
    prepared.columns[t.field.field] = t.asText ? String(key) : key;
  }
}

function structureError(detail: string): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. Invalid one-to-many update structure: ${detail}.`);
}

function childKey(related: CollectionOverview, raw: unknown): PrimaryKey {
  if (typeof raw !== 'string' && typeof raw !== 'number') throw structureError(`"${related.primary}" must be a primary key`);
  const key = keyOf(primaryField(related), raw);
  if (key === null) throw new ForbiddenError();
  return key;
}

/** Children of `parentKey` (optionally only / all but the given keys) lose their link: set null, or
 * deleted when the relation's one_deselect_action is `delete`. */
async function deselect(
  w: WriteContext, t: ToManyWrite, parentKey: PrimaryKey, keys: PrimaryKey[], mode: 'only' | 'except', depth: number,
): Promise<void> {
  if (mode === 'only' && keys.length === 0) return;
  const related = t.related;
  const pk = primaryField(related);
  const fk = t.relation.field;
  const match = mode === 'only' ? `and ${ident(pk.field)} = any($2${keyArrayCast(pk)})` : keys.length ? `and not (${ident(pk.field)} = any($2${keyArrayCast(pk)}))` : '';
  const rows = await run<{ pk: unknown }>(w.trx,
    `select ${ident(pk.field)} as pk from ${ident(related.collection)} where ${ident(fk)} = $1 ${match}`,
    keys.length ? [parentKey, keys] : [parentKey]);
  const found = rows.map((r) => keyFromRow(r.pk));
  if (found.length === 0) return;
  if (t.relation.meta.one_deselect_action === 'delete') await nestedDelete(w, related, found);
  else await nestedUpdate(w, related, found, { [fk]: null }, depth);
}

/** The many side's link of an existing child (undefined when the row does not exist). */
async function linkOf(w: WriteContext, t: ToManyWrite, key: PrimaryKey): Promise<unknown> {
  const [row] = await run<{ fk: unknown }>(w.trx,
    `select ${ident(t.relation.field)} as fk from ${ident(t.related.collection)} where ${ident(t.related.primary!)} = $1`, [key]);
  return row ? row.fk : undefined;
}

function linkedTo(fk: unknown, parentKey: PrimaryKey): boolean {
  return fk !== null && fk !== undefined && String(fk) === String(parentKey);
}

/** Writes one O2M alias value of the row `parentKey`. `fresh`: the parent was just created, so it has
 * no earlier children to deselect. Children appended to the parent get the relation's next sort value
 * (sort.ts). */
export async function writeToMany(w: WriteContext, parentKey: PrimaryKey, t: ToManyWrite, depth: number, fresh: boolean): Promise<void> {
  const childDepth = depth + 1;
  const related = t.related;
  const fk = t.relation.field;
  const value = t.value;
  const sort = SortSequence.of(w, t, parentKey, fresh);
  const withSort = (payload: Payload, appended: boolean, action: 'create' | 'update') =>
    sort ? sort.apply(payload, appended, action) : Promise.resolve(payload);

  if (Array.isArray(value)) {
    // A new parent's new children (objects without a key): written together.
    if (fresh && value.length > 1 && related.collection !== SHARES
      && value.every((item) => isPlainObject(item) && (item[related.primary!] === undefined || item[related.primary!] === null))) {
      const payloads: Payload[] = [];
      for (const item of value as Payload[]) payloads.push(await withSort({ ...item, [fk]: parentKey }, true, 'create'));
      await nestedCreateMany(w, related, payloads, childDepth);
      return;
    }
    const saved: PrimaryKey[] = [];
    for (const item of value) {
      if (typeof item === 'string' || typeof item === 'number') {
        const key = childKey(related, item);
        const link = await linkOf(w, t, key);
        if (link === undefined) throw new ForbiddenError();
        // Already linked: nothing to write (Directus skips it too, so no update activity is recorded).
        if (!linkedTo(link, parentKey)) await nestedUpdate(w, related, [key], await withSort({ [fk]: parentKey }, true, 'update'), childDepth);
        saved.push(key);
      } else if (isPlainObject(item)) {
        saved.push(await upsertChild(w, t, parentKey, item, childDepth, withSort));
      } else {
        throw structureError(`items of "${t.field}" must be primary keys or objects`);
      }
    }
    if (!fresh) await deselect(w, t, parentKey, unique(saved), 'except', childDepth);
    return;
  }

  if (!isPlainObject(value)) throw structureError(`"${t.field}" must be an array or an object with create, update and delete`);
  for (const key of Object.keys(value)) {
    if (key !== 'create' && key !== 'update' && key !== 'delete') throw structureError(`"${t.field}.${key}" is not allowed`);
    if (!Array.isArray(value[key])) throw structureError(`"${t.field}.${key}" must be an array`);
  }
  const { create = [], update = [], delete: remove = [] } = value as { create?: unknown[]; update?: unknown[]; delete?: unknown[] };
  for (const item of create) {
    if (!isPlainObject(item)) throw structureError(`"${t.field}.create" must contain objects`);
    await nestedCreate(w, related, await withSort({ ...item, [fk]: parentKey }, true, 'create'), childDepth);
  }
  for (const item of update) {
    if (!isPlainObject(item)) throw structureError(`"${t.field}.update" must contain objects`);
    const key = childKey(related, item[related.primary!]);
    const link = await linkOf(w, t, key);
    if (link === undefined) throw new ForbiddenError();
    await nestedUpdate(w, related, [key], await withSort({ ...item, [fk]: parentKey }, !linkedTo(link, parentKey), 'update'), childDepth);
  }
  if (remove.length > 0) await deselect(w, t, parentKey, unique(remove.map((k) => childKey(related, k))), 'only', childDepth);
}

/** An object in an O2M array: updates the child its key names (appended when it was linked elsewhere),
 * else creates one (Directus' upsert). */
async function upsertChild(
  w: WriteContext, t: ToManyWrite, parentKey: PrimaryKey, item: Payload, depth: number,
  withSort: (payload: Payload, appended: boolean, action: 'create' | 'update') => Promise<Payload>,
): Promise<PrimaryKey> {
  const related = t.related;
  const payload = { ...item, [t.relation.field]: parentKey };
  const raw = Object.hasOwn(item, related.primary!) ? item[related.primary!] : null;
  if (raw !== null && raw !== undefined) {
    const key = keyOf(primaryField(related), raw);
    const link = key === null ? undefined : await linkOf(w, t, key);
    if (key !== null && link !== undefined) {
      await nestedUpdate(w, related, [key], await withSort(payload, !linkedTo(link, parentKey), 'update'), depth);
      return key;
    }
  }
  return nestedCreate(w, related, await withSort(payload, true, 'create'), depth);
}
