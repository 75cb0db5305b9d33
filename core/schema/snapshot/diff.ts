/** Diffs between two snapshots in Directus' shape (`{collections, fields, relations}`, each entry a list of deep-diff
 * changes: N new, D deleted, E edited, A array), the schema a diff leads to, and the steps of it that lose data. */
import deepDiff, { type Diff } from 'deep-diff';
import { InvalidPayloadError } from '../../errors.ts';
import { isPlainObject, isSystemCollection } from '../ddl/names.ts';
import type { CollectionObject, FieldObject, RelationObject } from '../ddl/shapes.ts';
import { SNAPSHOT_VERSION, type SchemaSnapshot } from './snapshot.ts';

type Change = Diff<any, any>;

export interface SnapshotDiff {
  collections: { collection: string; diff: Change[] }[];
  fields: { collection: string; field: string; diff: Change[] }[];
  relations: { collection: string; field: string; related_collection: string | null; diff: Change[] }[];
}

/** What a schema is made of, keyed for diffing. */
export interface SchemaParts {
  collections: Map<string, CollectionObject>;
  fields: Map<string, FieldObject>;
  relations: Map<string, RelationObject>;
}

/** A step of a diff that loses data: applied only with `allow_destructive`. */
export interface DestructiveStep {
  kind: 'collection' | 'field' | 'type';
  collection: string;
  field?: string;
  description: string;
}

export const fieldKey = (collection: string, field: string): string => `${collection}\u0000${field}`;

export function partsOf(s: Pick<SchemaSnapshot, 'collections' | 'fields' | 'relations'>): SchemaParts {
  return {
    collections: new Map(s.collections.map((c) => [c.collection, c])),
    fields: new Map(s.fields.map((f) => [fieldKey(f.collection, f.field), f])),
    relations: new Map(s.relations.map((r) => [fieldKey(r.collection, r.field), r])),
  };
}

function requireName(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidPayloadError(`${where} must be a non-empty string.`);
  return value;
}

function requireList(value: unknown, where: string): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new InvalidPayloadError(`"${where}" must be an array.`);
  return value.map((v, i) => {
    if (!isPlainObject(v)) throw new InvalidPayloadError(`${where}[${i}] must be an object.`);
    return v;
  });
}

function requireUserCollection(name: string, where: string): void {
  if (isSystemCollection(name)) throw new InvalidPayloadError(`${where}: system collections ("svc_") are not part of a schema snapshot.`);
}

/** A snapshot from a request or a file: its shape checked, system collections refused. `force` skips the version and
 * vendor check (as Directus' `force`). */
export function parseSnapshot(body: unknown, force = false): SchemaSnapshot {
  if (!isPlainObject(body)) throw new InvalidPayloadError('The snapshot must be an object.');
  if (!force && body.version !== SNAPSHOT_VERSION) {
    throw new InvalidPayloadError(`The snapshot has version ${JSON.stringify(body.version ?? null)}; this server reads version ${SNAPSHOT_VERSION} (pass force=true to try anyway).`);
  }
  if (!force && body.vendor !== undefined && body.vendor !== 'postgres') {
    throw new InvalidPayloadError(`The snapshot was taken from ${String(body.vendor)}; this server runs on postgres (pass force=true to try anyway).`);
  }
  const collections = requireList(body.collections ?? [], 'collections').map((c, i) => {
    const name = requireName(c.collection, `collections[${i}].collection`);
    requireUserCollection(name, `collections[${i}]`);
    return c as unknown as CollectionObject;
  });
  const fields = requireList(body.fields ?? [], 'fields').map((f, i) => {
    requireUserCollection(requireName(f.collection, `fields[${i}].collection`), `fields[${i}]`);
    requireName(f.field, `fields[${i}].field`);
    requireName(f.type, `fields[${i}].type`);
    return f as unknown as FieldObject;
  });
  const relations = requireList(body.relations ?? [], 'relations').map((r, i) => {
    requireUserCollection(requireName(r.collection, `relations[${i}].collection`), `relations[${i}]`);
    requireName(r.field, `relations[${i}].field`);
    return r as unknown as RelationObject;
  });
  const seen = new Set<string>();
  for (const [what, keys] of [
    ['collection', collections.map((c) => c.collection)],
    ['field', fields.map((f) => `${f.collection}.${f.field}`)],
    ['relation', relations.map((r) => `${r.collection}.${r.field}`)],
  ] as const) {
    for (const k of keys) {
      if (seen.has(`${what}:${k}`)) throw new InvalidPayloadError(`The snapshot lists the ${what} "${k}" twice.`);
      seen.add(`${what}:${k}`);
    }
  }
  return { version: SNAPSHOT_VERSION, collections, fields, relations };
}

function diffMaps<T>(current: Map<string, T>, desired: Map<string, T>, entry: (key: string, obj: T, diff: Change[]) => void): void {
  const keys = [...new Set([...current.keys(), ...desired.keys()])].sort();
  for (const key of keys) {
    const a = current.get(key);
    const b = desired.get(key);
    if (a === undefined) entry(key, b!, [{ kind: 'N', rhs: b } as Change]);
    else if (b === undefined) entry(key, a, [{ kind: 'D', lhs: a } as Change]);
    else {
      const d = deepDiff.diff(a, b);
      if (d?.length) entry(key, b, d);
    }
  }
}

/** Column and key properties that follow from others (the names, the database type of a field type, the foreign key
 * of a relation): they are always taken from this schema where the object exists on both sides, so a diff never
 * holds them alone. */
const DERIVED_COLUMN = new Set(['name', 'table', 'data_type', 'foreign_key_schema', 'foreign_key_table', 'foreign_key_column', 'comment', 'constraint_name', 'column']);

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

function complete<T extends Loose>(current: T | undefined, desired: T): T {
  if (!current) return desired;
  const out: Loose = { ...desired };
  for (const [key, value] of Object.entries(current)) {
    if (!(key in out)) out[key] = value;
  }
  // Settings left null or out of a hand-written file are not managed: this schema keeps its own.
  if ((out.meta === null || out.meta === undefined) && isObject(current.meta)) out.meta = current.meta;
  else if (isObject(out.meta) && isObject(current.meta)) out.meta = { ...current.meta, ...out.meta };
  if (isObject(out.schema) && isObject(current.schema)) {
    const schema: Loose = { ...current.schema, ...out.schema };
    for (const key of DERIVED_COLUMN) {
      if (key in current.schema) schema[key] = current.schema[key];
      else delete schema[key];
    }
    out.schema = schema;
  }
  return out as T;
}

/** `desired` completed from `current` for the objects both have: a property left out (a hand-written file need not
 * list every one) keeps this schema's value, and the derived ones always do. A new object gets the defaults, which
 * the next diff then takes from this schema: so snapshot -> apply -> diff is empty for a partial file too. */
export function completeFrom(current: SchemaParts, desired: SchemaParts): SchemaParts {
  const fill = <T extends object>(a: Map<string, T>, b: Map<string, T>): Map<string, T> => new Map([...b].map(([k, v]) => [k, complete(a.get(k) as Loose | undefined, v as Loose) as T]));
  return { collections: fill(current.collections, desired.collections), fields: fill(current.fields, desired.fields), relations: fill(current.relations, desired.relations) };
}

/** The changes that turn `current` into `desired`. */
export function diffParts(current: SchemaParts, desired: SchemaParts): SnapshotDiff {
  const out: SnapshotDiff = { collections: [], fields: [], relations: [] };
  diffMaps(current.collections, desired.collections, (_k, c, diff) => out.collections.push({ collection: c.collection, diff }));
  diffMaps(current.fields, desired.fields, (_k, f, diff) => out.fields.push({ collection: f.collection, field: f.field, diff }));
  diffMaps(current.relations, desired.relations, (_k, r, diff) => out.relations.push({
    collection: r.collection, field: r.field, related_collection: r.related_collection ?? null, diff,
  }));
  return out;
}

export function isEmptyDiff(d: SnapshotDiff): boolean {
  return d.collections.length === 0 && d.fields.length === 0 && d.relations.length === 0;
}

const UNSAFE_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/** One deep-diff change from a request: its kind and path checked (a path may not reach an object's prototype). */
export function parseChange(raw: unknown, where: string): Change {
  if (!isPlainObject(raw)) throw new InvalidPayloadError(`${where} must be an object.`);
  if (!['N', 'D', 'E', 'A'].includes(raw.kind as string)) throw new InvalidPayloadError(`${where}.kind must be N, D, E or A.`);
  if (raw.path !== undefined) {
    if (!Array.isArray(raw.path) || !raw.path.every((p) => (typeof p === 'string' && !UNSAFE_KEYS.has(p)) || (Number.isInteger(p) && p >= 0))) {
      throw new InvalidPayloadError(`${where}.path must be a list of property names and indexes.`);
    }
  }
  if (raw.kind === 'A') {
    if (!Number.isInteger(raw.index) || (raw.index as number) < 0) throw new InvalidPayloadError(`${where}.index must be a non-negative integer.`);
    parseChange(raw.item, `${where}.item`);
  }
  return raw as unknown as Change;
}

/** A `{hash, diff}` body from a request (what POST /schema/diff answered). */
export function parseDiffBody(body: unknown): { hash: string; diff: SnapshotDiff } {
  if (!isPlainObject(body)) throw new InvalidPayloadError('The body must be an object: {hash, diff}.');
  if (typeof body.hash !== 'string' || body.hash === '') throw new InvalidPayloadError('"hash" is required: send the diff as POST /schema/diff answered it.');
  if (!isPlainObject(body.diff)) throw new InvalidPayloadError('"diff" must be an object with collections, fields and relations.');
  const d = body.diff;
  const list = (key: string, names: string[]) => requireList(d[key] ?? [], `diff.${key}`).map((e, i) => {
    for (const n of names) requireName(e[n], `diff.${key}[${i}].${n}`);
    requireUserCollection(e.collection as string, `diff.${key}[${i}]`);
    const changes = requireList(e.diff, `diff.${key}[${i}].diff`).map((c, j) => parseChange(c, `diff.${key}[${i}].diff[${j}]`));
    if (changes.length === 0) throw new InvalidPayloadError(`diff.${key}[${i}].diff is empty.`);
    return { ...e, diff: changes };
  });
  return {
    hash: body.hash,
    diff: {
      collections: list('collections', ['collection']) as SnapshotDiff['collections'],
      fields: list('fields', ['collection', 'field']) as SnapshotDiff['fields'],
      relations: list('relations', ['collection', 'field']) as SnapshotDiff['relations'],
    },
  };
}

function applyTo<T extends object>(map: Map<string, T>, key: string, label: string, changes: Change[], check: (obj: T) => boolean): void {
  const [first] = changes;
  if (changes.length === 1 && !first.path && first.kind === 'N') {
    if (!isPlainObject(first.rhs) || !check(first.rhs as T)) throw new InvalidPayloadError(`The diff's new ${label} does not describe ${label}.`);
    map.set(key, structuredClone(first.rhs as T));
    return;
  }
  if (changes.length === 1 && !first.path && first.kind === 'D') {
    map.delete(key);
    return;
  }
  const obj = map.get(key);
  if (!obj) throw new InvalidPayloadError(`The diff changes ${label}, which this schema does not have.`);
  const copy = structuredClone(obj);
  for (const c of changes) {
    if (!c.path?.length) throw new InvalidPayloadError(`A change of ${label} has no path.`);
    deepDiff.applyChange(copy, true, c);
  }
  if (!check(copy)) throw new InvalidPayloadError(`The diff changes the name of ${label}.`);
  map.set(key, copy);
}

/** The schema `diff` leads to from `current` (the schema the diff was made against). */
export function applyDiffToParts(current: SchemaParts, diff: SnapshotDiff): SchemaParts {
  const out: SchemaParts = { collections: new Map(current.collections), fields: new Map(current.fields), relations: new Map(current.relations) };
  for (const e of diff.collections) {
    applyTo(out.collections, e.collection, `collection "${e.collection}"`, e.diff, (c) => c.collection === e.collection);
  }
  for (const e of diff.fields) {
    applyTo(out.fields, fieldKey(e.collection, e.field), `field "${e.collection}.${e.field}"`, e.diff, (f) => f.collection === e.collection && f.field === e.field);
  }
  for (const e of diff.relations) {
    applyTo(out.relations, fieldKey(e.collection, e.field), `the relation of "${e.collection}.${e.field}"`, e.diff, (r) => r.collection === e.collection && r.field === e.field);
  }
  return out;
}

type ColumnShape = Record<string, unknown> | null;
const num = (s: ColumnShape, key: string, fallback: number): number => (typeof s?.[key] === 'number' ? s[key] as number : fallback);
const intDigits = (s: ColumnShape): number => num(s, 'numeric_precision', 10) - num(s, 'numeric_scale', 5);

/** Whether every value of a column of `from` survives the change to `to` unchanged. */
export function losslessTypeChange(from: FieldObject, to: FieldObject): boolean {
  const a = from.schema;
  const b = to.schema;
  if (from.type === to.type) {
    if (from.type === 'string') return num(b, 'max_length', 255) >= num(a, 'max_length', 255);
    if (from.type === 'decimal') return intDigits(b) >= intDigits(a) && num(b, 'numeric_scale', 5) >= num(a, 'numeric_scale', 5);
    return true;
  }
  switch (`${from.type}>${to.type}`) {
    case 'string>text': case 'csv>text': case 'hash>text': case 'uuid>text':
    case 'integer>bigInteger': case 'integer>float': case 'integer>text': case 'bigInteger>text':
      return true;
    case 'uuid>string': return num(b, 'max_length', 255) >= 36;
    case 'integer>decimal': return intDigits(b) >= 10;
    case 'bigInteger>decimal': return intDigits(b) >= 19;
    default: return false;
  }
}

/** The steps from `current` to `desired` that lose data: tables and columns dropped, types narrowed. Renames are
 * never guessed: a renamed field is a dropped one and a new one, and so destructive. */
export function destructiveSteps(current: SchemaParts, desired: SchemaParts): DestructiveStep[] {
  const out: DestructiveStep[] = [];
  for (const [name, c] of current.collections) {
    if (!desired.collections.has(name) && c.schema !== null) {
      out.push({ kind: 'collection', collection: name, description: `Deletes the collection "${name}" and every item in it.` });
    }
  }
  for (const [key, f] of current.fields) {
    if (f.schema === null || !desired.collections.has(f.collection) || !current.collections.has(f.collection)) continue;
    const next = desired.fields.get(key);
    if (!next) {
      out.push({ kind: 'field', collection: f.collection, field: f.field, description: `Deletes the field "${f.collection}.${f.field}" and its values.` });
    } else if (next.schema !== null && !losslessTypeChange(f, next)) {
      out.push({
        kind: 'type', collection: f.collection, field: f.field,
        description: `Changes "${f.collection}.${f.field}" from ${describeType(f)} to ${describeType(next)}, which may not hold every value.`,
      });
    }
  }
  return out;
}

/** A destructive step of the schema, or of a configuration section (config/index.ts). */
type AnyDestructive = { kind: string; collection?: string; field?: string; section?: string; key?: Record<string, unknown> };

/** The destructive steps in one sentence: what kind, how many, the first few names. */
export function summarizeDestructive(steps: readonly AnyDestructive[]): string {
  const groups: { verb: string; noun: string; names: string[] }[] = [
    { verb: 'deletes', noun: 'collection', names: steps.filter((s) => s.kind === 'collection').map((s) => String(s.collection)) },
    { verb: 'deletes', noun: 'field', names: steps.filter((s) => s.kind === 'field').map((s) => `${s.collection}.${s.field}`) },
    { verb: 'narrows the type of', noun: 'field', names: steps.filter((s) => s.kind === 'type').map((s) => `${s.collection}.${s.field}`) },
  ];
  for (const section of new Set(steps.filter((s) => s.kind === 'config').map((s) => String(s.section)))) {
    const names = steps.filter((s) => s.kind === 'config' && s.section === section).map((s) => Object.values(s.key ?? {}).join(' / '));
    groups.push({ verb: 'deletes', noun: `${section} entr`, names });
  }
  const parts = groups.filter((g) => g.names.length).map(({ verb, noun, names }) => {
    const shown = names.length > 4 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
    const plural = noun.endsWith(' entr') ? (names.length > 1 ? 'ies' : 'y') : names.length > 1 ? 's' : '';
    return `${verb} ${names.length} ${noun}${plural} (${shown})`;
  });
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0] ?? '';
}

function describeType(f: FieldObject): string {
  const s = f.schema;
  if (f.type === 'string') return `string(${num(s, 'max_length', 255)})`;
  if (f.type === 'decimal') return `decimal(${num(s, 'numeric_precision', 10)}, ${num(s, 'numeric_scale', 5)})`;
  return f.type;
}
