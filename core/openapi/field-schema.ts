/** OpenAPI schemas of fields, from their types in the schema overview, in their wire shapes (DESIGN.md >
 * Wire types): bigInteger and decimal as strings, csv as an array, timestamps as ISO strings, hashes write-only.
 * Relational fields are the key or the related item (whichever `fields` asked for): M2O `oneOf [key, item]`,
 * O2M an array of the same, A2O the key or an item of any allowed collection. */
import { relationOf } from '../schema/relations.ts';
import type { CollectionOverview, FieldOverview, FieldType, SchemaOverview } from '../schema/types.ts';
import { schemaRef } from './names.ts';
import type { SchemaObject } from './types.ts';

/** Component name of a collection's item schema, or null when the collection has none in the document. */
export type ItemRefs = (collection: string) => string | null;

const SCALARS: Record<Exclude<FieldType, 'alias'>, SchemaObject> = {
  string: { type: 'string' },
  text: { type: 'string' },
  integer: { type: 'integer', format: 'int32' },
  bigInteger: { type: 'string', pattern: '^-?[0-9]+$', description: '64-bit integer, as a string' },
  float: { type: 'number', format: 'double' },
  decimal: { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: 'Decimal number, as a string' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  time: { type: 'string', pattern: '^[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?$', description: 'Time of day (HH:MM:SS)' },
  timestamp: { type: 'string', format: 'date-time' },
  dateTime: { type: 'string', description: 'Date and time without zone (YYYY-MM-DDTHH:MM:SS)' },
  uuid: { type: 'string', format: 'uuid' },
  json: { description: 'Any JSON value' },
  csv: { type: 'array', items: { type: 'string' }, description: 'Stored comma-separated; an array on the wire' },
  hash: { type: 'string', writeOnly: true, description: 'Stored as a one-way hash; reads answer "**********"' },
};

/** The schema of a column's value, without relations. */
export function scalarSchema(field: FieldOverview): SchemaObject {
  if (field.type === 'alias') return {};
  const out: SchemaObject = { ...SCALARS[field.type] };
  if (field.type === 'string' && field.maxLength !== null) out.maxLength = field.maxLength;
  if (field.special.includes('conceal') && field.type !== 'hash') out.description = 'Concealed: reads answer "**********"';
  if (field.isPrimaryKey && field.autoIncrement) out.readOnly = true;
  return out;
}

/** The schema of a primary key value of a collection (integer or string). */
export function keySchema(collection: CollectionOverview | undefined): SchemaObject {
  const pk = collection?.primary ? collection.fields[collection.primary] : undefined;
  if (!pk) return { type: 'string' };
  const { readOnly: _readOnly, ...key } = scalarSchema(pk);
  return key;
}

function keyOrItem(schema: SchemaOverview, related: string, refs: ItemRefs): SchemaObject {
  const key = keySchema(schema.collections[related]);
  const ref = refs(related);
  return ref ? { oneOf: [key, schemaRef(ref)] } : key;
}

/** The schema of one field, or null when it carries no data (presentation aliases, broken relations). */
export function fieldSchema(schema: SchemaOverview, collection: CollectionOverview, field: FieldOverview, refs: ItemRefs): SchemaObject | null {
  const relation = relationOf(schema, collection.collection, field.field);
  let out: SchemaObject;
  if (relation?.kind === 'm2o' && !field.alias) {
    out = keyOrItem(schema, relation.related, refs);
  } else if (relation?.kind === 'o2m') {
    out = { type: 'array', items: keyOrItem(schema, relation.related, refs) };
  } else if (relation?.kind === 'a2o' && !field.alias) {
    const targets = relation.allowed.map((c) => refs(c)).filter((r): r is string => r !== null);
    out = { oneOf: [{ type: 'string' }, ...targets.map(schemaRef)], description: `Key, or an item of: ${relation.allowed.join(', ')}` };
  } else if (field.alias) {
    return null;
  } else {
    out = scalarSchema(field);
  }
  if (field.nullable && !field.isPrimaryKey && !field.alias) out.nullable = true;
  return out;
}

/** The item schema of a collection: every data field, all optional (a read returns the fields asked for). */
export function itemSchema(schema: SchemaOverview, collection: CollectionOverview, refs: ItemRefs): SchemaObject {
  const properties: Record<string, SchemaObject> = {};
  for (const field of Object.values(collection.fields)) {
    const s = fieldSchema(schema, collection, field, refs);
    if (s) properties[field.field] = s;
  }
  return { type: 'object', description: `An item of ${collection.collection}`, properties };
}
