/** Resolves what a field points at (M2O, O2M, A2O) from the overview's relation list, indexed once per overview. */
import type { RelationInfo, SchemaOverview } from './types.ts';

const indexes = new WeakMap<SchemaOverview, Map<string, RelationInfo>>();

function buildIndex(schema: SchemaOverview): Map<string, RelationInfo> {
  const index = new Map<string, RelationInfo>();
  for (const relation of schema.relations) {
    const { collection, field, related_collection: related } = relation;
    if (related) {
      if (schema.collections[related]) index.set(`${collection}.${field}`, { kind: 'm2o', relation, related });
      const oneField = relation.meta.one_field;
      if (oneField && schema.collections[related]?.fields[oneField]) {
        index.set(`${related}.${oneField}`, { kind: 'o2m', relation, related: collection });
      }
    } else if (relation.meta.one_collection_field) {
      index.set(`${collection}.${field}`, {
        kind: 'a2o',
        relation,
        allowed: (relation.meta.one_allowed_collections ?? []).filter((c) => schema.collections[c]?.primary),
        collectionField: relation.meta.one_collection_field,
      });
    }
  }
  return index;
}

export function relationOf(schema: SchemaOverview, collection: string, field: string): RelationInfo | null {
  let index = indexes.get(schema);
  if (!index) {
    index = buildIndex(schema);
    indexes.set(schema, index);
  }
  return index.get(`${collection}.${field}`) ?? null;
}
