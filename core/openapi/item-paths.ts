/** Paths of user collections: one concrete path per collection under /items/{collection} (SPEC.md > Items).
 * Singletons have only GET and PATCH on the collection path. */
import type { CollectionOverview } from '../schema/types.ts';
import { LIST_PARAMETERS, META_SCHEMA, ONE_PARAMETERS, QUERY_SCHEMA, VERSION_PARAMETER } from './components.ts';
import { keySchema } from './field-schema.ts';
import { itemsTag, schemaRef } from './names.ts';
import { operation } from './operation.ts';
import type { ParameterObject, PathItemObject, SchemaObject } from './types.ts';

const listBody = (item: SchemaObject): SchemaObject => ({
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: item }, meta: META_SCHEMA },
});

/** `{keys, data}`, `{query, data}` or an array of items carrying their keys. */
function batchUpdate(item: SchemaObject, key: SchemaObject): SchemaObject {
  return {
    oneOf: [
      { type: 'object', required: ['keys', 'data'], properties: { keys: { type: 'array', items: key }, data: item } },
      { type: 'object', required: ['query', 'data'], properties: { query: QUERY_SCHEMA, data: item } },
      { type: 'array', items: item },
    ],
  };
}

function batchDelete(key: SchemaObject): SchemaObject {
  return {
    oneOf: [
      { type: 'array', items: key },
      { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: key } } },
      { type: 'object', required: ['query'], properties: { query: QUERY_SCHEMA } },
    ],
  };
}

/** The paths of one user collection, keyed by path. `stem` is its PascalCase name (component and ids). */
export function itemPaths(collection: CollectionOverview, stem: string): Record<string, PathItemObject> {
  const name = collection.collection;
  const base = `/items/${name}`;
  const tag = itemsTag(name);
  const item = schemaRef(`Items${stem}`);
  const key = keySchema(collection);
  const unique = Object.values(collection.fields).some((f) => f.unique && !f.isPrimaryKey);

  if (collection.singleton) {
    return {
      [base]: {
        get: operation({ id: `readItems${stem}`, summary: `Read the ${name} singleton`, tag, parameters: ONE_PARAMETERS, data: item }),
        patch: operation({
          id: `updateItems${stem}`, summary: `Update the ${name} singleton`, tag, body: item, data: key, unique,
          description: 'Creates the item when none exists yet.',
        }),
      },
    };
  }

  const paths: Record<string, PathItemObject> = {
    [base]: {
      get: operation({ id: `readItems${stem}`, summary: `List ${name} items`, tag, parameters: LIST_PARAMETERS, data: listBody(item), raw: true }),
      post: operation({
        id: `createItems${stem}`, summary: `Create one or more ${name} items`, tag, unique,
        body: { oneOf: [item, { type: 'array', items: item }] },
        data: { oneOf: [key, { type: 'array', items: key }] },
        description: 'Answers the primary key of the created item, or the keys of the created items.',
      }),
      patch: operation({
        id: `updateItems${stem}`, summary: `Update several ${name} items`, tag, unique, body: batchUpdate(item, key),
        data: { type: 'array', items: key },
      }),
      delete: operation({ id: `deleteItems${stem}`, summary: `Delete several ${name} items`, tag, body: batchDelete(key), status: 204 }),
    },
    [`${base}/search`]: {
      post: operation({
        id: `searchItems${stem}`, summary: `Query ${name} items with a query object in the body`, tag,
        body: QUERY_SCHEMA, bodyRequired: false, data: listBody(item), raw: true,
      }),
    },
  };
  if (collection.primary) {
    const idParam: ParameterObject = { name: 'id', in: 'path', required: true, description: `Primary key of a ${name} item`, schema: key };
    paths[`${base}/{id}`] = {
      parameters: [idParam],
      get: operation({
        id: `readSingleItems${stem}`, summary: `Read one ${name} item`, tag, pathParams: true,
        parameters: [...ONE_PARAMETERS, VERSION_PARAMETER], data: item,
      }),
      patch: operation({ id: `updateSingleItems${stem}`, summary: `Update one ${name} item`, tag, pathParams: true, unique, body: item, data: key }),
      delete: operation({ id: `deleteSingleItems${stem}`, summary: `Delete one ${name} item`, tag, pathParams: true, status: 204 }),
    };
  }
  return paths;
}
