/** The two generic route families of system collections:
 * - record routes (functions/http/record-routes.ts: roles, policies, permissions, access, app permissions):
 *   list, read, create, update and delete one; writes answer the primary key;
 * - system-collection routes (functions/routes/system-collections.ts: notifications, comments, translations,
 *   shares, presets, folders; activity and revisions read-only): writes answer the written records (204 when
 *   the caller may not read them back), with batch update and delete on the collection path. */
import { LIST_PARAMETERS, ONE_PARAMETERS, QUERY_SCHEMA } from '../components.ts';
import { operation } from '../operation.ts';
import type { SchemaObject } from '../types.ts';
import { arrayOf, endpoint, listOf, oneOrMany, pathParam, type Endpoint, type SystemContext } from './endpoint.ts';

export interface CrudNames {
  /** URL path without the leading slash. */
  path: string;
  collection: string;
  tag: string;
  /** PascalCase plural (`Roles`), used in operationIds. */
  stem: string;
  /** Human noun (`role`). */
  noun: string;
}

export function recordRoutes(ctx: SystemContext, n: CrudNames): Endpoint[] {
  const base = `/${n.path}`;
  const record = ctx.record(n.collection);
  const key = ctx.key(n.collection);
  const id = pathParam('id', `Primary key of the ${n.noun}`, key);
  return [
    endpoint('get', base, operation({ id: `read${n.stem}`, summary: `List ${n.noun} records`, tag: n.tag, parameters: LIST_PARAMETERS, data: listOf(record), raw: true })),
    endpoint('post', base, operation({ id: `create${n.stem}`, summary: `Create a ${n.noun}`, tag: n.tag, body: record, data: key, unique: true })),
    endpoint('get', `${base}/{id}`, operation({
      id: `readSingle${n.stem}`, summary: `Read a ${n.noun}`, tag: n.tag, parameters: [id, ...ONE_PARAMETERS], data: record, pathParams: true,
    })),
    endpoint('patch', `${base}/{id}`, operation({
      id: `updateSingle${n.stem}`, summary: `Update a ${n.noun}`, tag: n.tag, parameters: [id], body: record, data: key, pathParams: true, unique: true,
    })),
    endpoint('delete', `${base}/{id}`, operation({
      id: `deleteSingle${n.stem}`, summary: `Delete a ${n.noun}`, tag: n.tag, parameters: [id], status: 204, pathParams: true,
    })),
  ];
}

function batchUpdate(record: SchemaObject, key: SchemaObject): SchemaObject {
  return {
    oneOf: [
      { type: 'object', required: ['keys', 'data'], properties: { keys: arrayOf(key), data: record } },
      { type: 'object', required: ['query', 'data'], properties: { query: QUERY_SCHEMA, data: record } },
      arrayOf(record),
    ],
  };
}

function batchDelete(key: SchemaObject): SchemaObject {
  return {
    oneOf: [
      arrayOf(key),
      { type: 'object', required: ['keys'], properties: { keys: arrayOf(key) } },
      { type: 'object', required: ['query'], properties: { query: QUERY_SCHEMA } },
    ],
  };
}

export function systemCollectionRoutes(ctx: SystemContext, n: CrudNames, readOnly = false): Endpoint[] {
  const base = `/${n.path}`;
  const record = ctx.record(n.collection);
  const key = ctx.key(n.collection);
  const id = pathParam('id', `Primary key of the ${n.noun}`, key);
  const out = [
    endpoint('get', base, operation({ id: `read${n.stem}`, summary: `List ${n.noun} records`, tag: n.tag, parameters: LIST_PARAMETERS, data: listOf(record), raw: true })),
    endpoint('get', `${base}/{id}`, operation({
      id: `readSingle${n.stem}`, summary: `Read a ${n.noun}`, tag: n.tag, parameters: [id, ...ONE_PARAMETERS], data: record, pathParams: true,
    })),
  ];
  if (readOnly) return out;
  out.push(
    endpoint('post', base, operation({
      id: `create${n.stem}`, summary: `Create one or more ${n.noun} records`, tag: n.tag, parameters: ONE_PARAMETERS,
      body: oneOrMany(record), data: oneOrMany(record), maybeEmpty: true, unique: true,
    })),
    endpoint('patch', base, operation({
      id: `update${n.stem}`, summary: `Update several ${n.noun} records`, tag: n.tag, parameters: ONE_PARAMETERS,
      body: batchUpdate(record, key), data: arrayOf(record), maybeEmpty: true, unique: true,
    })),
    endpoint('delete', base, operation({ id: `delete${n.stem}`, summary: `Delete several ${n.noun} records`, tag: n.tag, body: batchDelete(key), status: 204 })),
    endpoint('patch', `${base}/{id}`, operation({
      id: `updateSingle${n.stem}`, summary: `Update a ${n.noun}`, tag: n.tag, parameters: [id, ...ONE_PARAMETERS],
      body: record, data: record, maybeEmpty: true, pathParams: true, unique: true,
    })),
    endpoint('delete', `${base}/{id}`, operation({
      id: `deleteSingle${n.stem}`, summary: `Delete a ${n.noun}`, tag: n.tag, parameters: [id], status: 204, pathParams: true,
    })),
  );
  return out;
}
