/** Validates a payload against the schema overview and the caller's field permissions, and splits it
 * into column values (coerced, ready to bind) and the relational writes nested in it. */
import { hashPassword } from '../../auth/passwords.ts';
import { ErrorList, ForbiddenError, InvalidPayloadError } from '../../errors.ts';
import { relationOf } from '../../schema/relations.ts';
import type { CollectionOverview, FieldOverview, Relation, SchemaOverview } from '../../schema/types.ts';
import { keyOf } from './keys.ts';
import type { Payload, PrimaryKey } from './types.ts';
import { coerceValue, ValueError } from './values.ts';
import { isPlainObject } from '../../plain-object.ts';

/** A many-to-one (or any-to-one) value given as an object: written first, its key stored in `field`. */
export interface ToOneWrite {
  field: FieldOverview;
  related: CollectionOverview;
  value: Payload;
  /** A2O columns hold the key as text. */
  asText: boolean;
}

/** A one-to-many alias value: written after the parent, with the parent's key. */
export interface ToManyWrite {
  field: string;
  relation: Relation;
  related: CollectionOverview;
  value: unknown;
}

export interface PreparedPayload {
  columns: Payload;
  toOne: ToOneWrite[];
  toMany: ToManyWrite[];
}

export { isPlainObject };

export function collectionOf(schema: SchemaOverview, name: string): CollectionOverview | undefined {
  return Object.hasOwn(schema.collections, name) ? schema.collections[name] : undefined;
}

function fieldOf(collection: CollectionOverview, name: string): FieldOverview | undefined {
  return Object.hasOwn(collection.fields, name) ? collection.fields[name] : undefined;
}

function invalid(collection: string, field: string, message: string): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. ${message}`, { collection, field });
}

/** FORBIDDEN when the payload names a field the permission does not list (null = all fields). */
export function checkFieldAccess(collection: string, payload: Payload, allowed: Set<string> | null): void {
  if (!allowed) return;
  for (const key of Object.keys(payload)) {
    if (!allowed.has(key)) {
      throw new ForbiddenError(`You don't have permission to access field "${key}" in collection "${collection}" or it does not exist.`);
    }
  }
}

function relatedWithKey(schema: SchemaOverview, name: string): CollectionOverview | undefined {
  const c = collectionOf(schema, name);
  return c && c.primary ? c : undefined;
}

export async function preparePayload(
  schema: SchemaOverview, collection: CollectionOverview, payload: Payload, mode: 'create' | 'update', target: PrimaryKey[] | null,
): Promise<PreparedPayload> {
  const name = collection.collection;
  const out: PreparedPayload = { columns: {}, toOne: [], toMany: [] };
  const errors: InvalidPayloadError[] = [];
  let hashed: string[] | null = null;

  for (const key of Object.keys(payload)) {
    const value = payload[key];
    const field = fieldOf(collection, key);
    if (!field) {
      errors.push(invalid(name, key, `Field "${key}" doesn't exist in collection "${name}".`));
      continue;
    }
    const relation = relationOf(schema, name, key);
    if (field.alias) {
      if (relation?.kind === 'o2m' && value !== null && value !== undefined) {
        const related = relatedWithKey(schema, relation.related);
        if (related) out.toMany.push({ field: key, relation: relation.relation, related, value });
      }
      continue; // presentation aliases carry no data; Directus drops them too
    }
    if (field.isPrimaryKey) {
      if (mode === 'create' && (value === null || value === undefined) && field.autoIncrement) continue;
      if (mode === 'update') {
        const k = keyOf(field, value);
        if (k === null || !target || target.length !== 1 || String(k) !== String(target[0])) {
          errors.push(invalid(name, key, `Primary key "${key}" can't be changed.`));
        }
        continue;
      }
    }
    if (value === null) {
      if (!field.nullable) errors.push(invalid(name, key, `Value for field "${key}" can't be null.`));
      else out.columns[key] = null;
      continue;
    }
    if (relation && relation.kind !== 'o2m' && isPlainObject(value)) {
      const relatedName = relation.kind === 'm2o' ? relation.related : payload[relation.collectionField];
      const related = typeof relatedName === 'string' ? relatedWithKey(schema, relatedName) : undefined;
      if (relation.kind === 'a2o' && (!related || !relation.allowed.includes(related.collection))) {
        errors.push(a2oError(name, key, relation.collectionField, relatedName));
      } else if (related) {
        out.toOne.push({ field, related, value, asText: relation.kind === 'a2o' });
      } else {
        errors.push(invalid(name, key, `Value for field "${key}" must be a primary key.`));
      }
      continue;
    }
    if (relation?.kind === 'a2o') {
      const relatedName = payload[relation.collectionField];
      if (typeof relatedName !== 'string' || !relation.allowed.includes(relatedName)) {
        errors.push(a2oError(name, key, relation.collectionField, relatedName));
        continue;
      }
      if (typeof value === 'number') {
        out.columns[key] = String(value);
        continue;
      }
    }
    try {
      const bound = coerceValue(field, value);
      // An empty hash value means "leave unchanged", as Directus' hash special does.
      if (field.type === 'hash') {
        if (bound !== '') (hashed ??= []).push(key);
        else continue;
      }
      out.columns[key] = bound;
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      errors.push(invalid(name, key, `Value for field "${key}" ${err.message}.`));
    }
  }

  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new ErrorList(errors);
  if (hashed) {
    for (const key of hashed) out.columns[key] = await hashPassword(out.columns[key] as string);
  }
  return out;
}

function a2oError(collection: string, field: string, collectionField: string, relatedName: unknown): InvalidPayloadError {
  return typeof relatedName !== 'string'
    ? invalid(collection, field, `Can't update nested record "${field}" without field "${collectionField}" being set.`)
    : invalid(collection, field, `"${collection}.${field}" can't be linked to collection "${relatedName}".`);
}
