/** /collections, /fields and /relations (functions/routes/collections.ts, fields.ts, relations.ts), with the
 * hand-written shapes of their records (Directus' collection, field and relation objects), and /schema (snapshot, diff
 * and apply: functions/routes/schema.ts). */
import { operation } from '../operation.ts';
import { schemaRef } from '../names.ts';
import type { ParameterObject, SchemaObject } from '../types.ts';
import { arrayOf, endpoint, freeObject, pathParam, type Endpoint } from './endpoint.ts';

const str: SchemaObject = { type: 'string' };
const nullableStr: SchemaObject = { type: 'string', nullable: true };

export const SCHEMA_COMPONENTS: Record<string, SchemaObject> = {
  Collection: {
    type: 'object',
    properties: {
      collection: str,
      meta: { ...freeObject('svc_collections metadata: icon, note, hidden, singleton, sort_field, accountability, ...'), nullable: true },
      schema: { type: 'object', nullable: true, properties: { name: str }, description: 'null for folder collections' },
      fields: { type: 'array', items: schemaRef('Field'), description: 'On create: the fields to create with the table' },
      folder: { type: 'boolean', description: 'On create: a virtual folder with no table' },
    },
  },
  Field: {
    type: 'object',
    properties: {
      collection: str,
      field: str,
      type: { type: 'string', enum: ['string', 'text', 'integer', 'bigInteger', 'float', 'decimal', 'boolean', 'date', 'time', 'timestamp', 'dateTime', 'uuid', 'json', 'csv', 'hash', 'alias'] },
      meta: { ...freeObject('svc_fields metadata: interface, display, readonly, hidden, note, options, required, special, ...'), nullable: true },
      schema: {
        type: 'object', nullable: true, additionalProperties: true,
        properties: {
          name: str, is_primary_key: { type: 'boolean' }, has_auto_increment: { type: 'boolean' }, is_nullable: { type: 'boolean' },
          default_value: {}, max_length: { type: 'integer', nullable: true },
        },
      },
    },
  },
  Relation: {
    type: 'object',
    properties: {
      collection: str,
      field: str,
      related_collection: nullableStr,
      schema: { ...freeObject('Foreign key: on_delete, on_update, constraint_name'), nullable: true },
      meta: { ...freeObject('svc_relations metadata: one_field, junction_field, sort_field, one_allowed_collections, ...'), nullable: true },
    },
  },
};

export function schemaEndpoints(): Endpoint[] {
  const collection = schemaRef('Collection');
  const field = schemaRef('Field');
  const relation = schemaRef('Relation');
  const cParam = pathParam('collection', 'Collection name');
  const fParam = pathParam('field', 'Field name');
  const c = { tag: 'Collections' };
  const f = { tag: 'Fields' };
  const r = { tag: 'Relations' };
  return [
    endpoint('get', '/collections', operation({ id: 'readCollections', summary: 'List collections', ...c, data: arrayOf(collection) })),
    endpoint('post', '/collections', operation({ id: 'createCollection', summary: 'Create a collection (table or folder)', ...c, body: collection, data: collection, unique: true })),
    endpoint('patch', '/collections', operation({ id: 'updateCollections', summary: 'Update the metadata of several collections', ...c, body: arrayOf(collection), data: arrayOf(collection) })),
    endpoint('get', '/collections/{collection}', operation({ id: 'readCollection', summary: 'Read a collection', ...c, parameters: [cParam], data: collection, pathParams: true })),
    endpoint('patch', '/collections/{collection}', operation({ id: 'updateCollection', summary: 'Update a collection', ...c, parameters: [cParam], body: collection, data: collection, pathParams: true })),
    endpoint('delete', '/collections/{collection}', operation({ id: 'deleteCollection', summary: 'Delete a collection and its table', ...c, parameters: [cParam], status: 204, pathParams: true })),

    endpoint('get', '/fields', operation({ id: 'readFields', summary: 'List the fields of every collection', ...f, data: arrayOf(field) })),
    endpoint('get', '/fields/{collection}', operation({ id: 'readCollectionFields', summary: 'List the fields of a collection', ...f, parameters: [cParam], data: arrayOf(field), pathParams: true })),
    endpoint('post', '/fields/{collection}', operation({ id: 'createField', summary: 'Add a field', ...f, parameters: [cParam], body: field, data: field, pathParams: true, unique: true })),
    endpoint('patch', '/fields/{collection}', operation({ id: 'updateFields', summary: 'Update several fields', ...f, parameters: [cParam], body: arrayOf(field), data: arrayOf(field), pathParams: true })),
    endpoint('get', '/fields/{collection}/{field}', operation({ id: 'readField', summary: 'Read a field', ...f, parameters: [cParam, fParam], data: field, pathParams: true })),
    endpoint('patch', '/fields/{collection}/{field}', operation({ id: 'updateField', summary: 'Update a field', ...f, parameters: [cParam, fParam], body: field, data: field, pathParams: true })),
    endpoint('delete', '/fields/{collection}/{field}', operation({ id: 'deleteField', summary: 'Drop a field', ...f, parameters: [cParam, fParam], status: 204, pathParams: true })),

    endpoint('get', '/relations', operation({ id: 'readRelations', summary: 'List relations', ...r, data: arrayOf(relation) })),
    endpoint('post', '/relations', operation({ id: 'createRelation', summary: 'Create a relation', ...r, body: relation, data: relation })),
    endpoint('get', '/relations/{collection}', operation({ id: 'readCollectionRelations', summary: 'Relations of a collection', ...r, parameters: [cParam], data: arrayOf(relation), pathParams: true })),
    endpoint('get', '/relations/{collection}/{field}', operation({ id: 'readRelation', summary: 'Read a relation', ...r, parameters: [cParam, fParam], data: relation, pathParams: true })),
    endpoint('patch', '/relations/{collection}/{field}', operation({ id: 'updateRelation', summary: 'Update a relation', ...r, parameters: [cParam, fParam], body: relation, data: relation, pathParams: true })),
    endpoint('delete', '/relations/{collection}/{field}', operation({ id: 'deleteRelation', summary: 'Delete a relation', ...r, parameters: [cParam, fParam], status: 204, pathParams: true })),

    ...snapshotEndpoints(),
  ];
}

const query = (name: string, description: string, schema: SchemaObject = { type: 'string' }): ParameterObject => ({ name, in: 'query', description, schema });
const flag = (name: string, description: string): ParameterObject => query(name, description, { type: 'boolean' });

/** Schema as code (functions/routes/schema.ts): snapshot, diff and apply, with the configuration sections of
 * core/schema/snapshot/config (docs/schema-as-code.md). */
function snapshotEndpoints(): Endpoint[] {
  const tag = { tag: 'Schema' };
  const snapshot: SchemaObject = {
    type: 'object', required: ['version', 'collections', 'fields', 'relations'],
    properties: {
      version: { type: 'integer' }, svc: str, vendor: str,
      collections: arrayOf(schemaRef('Collection')), fields: arrayOf(schemaRef('Field')), relations: arrayOf(schemaRef('Relation')),
      config: freeObject('Configuration sections asked for with include (roles, policies, access, permissions, app_permissions, settings, asset_presets, presets, storage_providers, auth_providers, notify_layouts, notify_templates, notify_contents, workflows); never secrets'),
    },
  };
  const diff: SchemaObject = {
    type: 'object', required: ['hash', 'diff'],
    properties: {
      hash: str,
      diff: freeObject('Deep-diff entries: collections, fields, relations, and config.<section>: [{key, diff}]'),
      destructive: { type: 'array', items: freeObject('A step that loses data (a dropped table, field or narrowed type; a deleted configuration row)') },
    },
  };
  return [
    endpoint('get', '/schema/snapshot', operation({
      id: 'schemaSnapshot', summary: 'Snapshot of the schema (and configuration sections with include)', ...tag, data: snapshot,
      parameters: [
        query('include', 'Configuration sections to add, comma-separated, or all'),
        query('includeCollections', 'Comma list: only these collections'),
        query('excludeCollections', 'Comma list: all but these collections'),
        query('export', 'json or yaml: answer as a file download', { type: 'string', enum: ['json', 'yaml'] }),
      ],
    })),
    endpoint('post', '/schema/diff', operation({
      id: 'schemaDiff', summary: 'Diff from this schema to a snapshot (204 when equal)', ...tag, data: diff, maybeEmpty: true,
      content: { 'application/json': snapshot, 'application/yaml': snapshot },
      parameters: [flag('force', 'Skip the version and vendor check')],
    })),
    endpoint('post', '/schema/apply', operation({
      id: 'schemaApply', summary: 'Apply a diff in one transaction (409 when the schema or managed configuration changed since)', ...tag, body: diff, status: 204,
      parameters: [flag('allow_destructive', 'Allow steps that lose data'), flag('dry_run', 'List the steps and SQL, then roll back (answers 200)')],
      extra: { 200: { description: 'Dry run: {data: {steps, sql, destructive}}' }, 409: { description: 'The schema changed since the diff was made' } },
    })),
  ];
}
