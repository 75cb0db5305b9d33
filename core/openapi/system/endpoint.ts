/** What the system-path modules produce: operations on concrete paths, and the few helpers they share. */
import { META_SCHEMA } from '../components.ts';
import type { HttpMethod, OperationObject, ParameterObject, SchemaObject } from '../types.ts';

export interface Endpoint {
  method: HttpMethod;
  /** OpenAPI path (`/users/{id}`). */
  path: string;
  op: OperationObject;
}

export interface SystemContext {
  /** Record schema of a system collection: a reference to its component, or a free object without one. */
  record(collection: string): SchemaObject;
  /** Schema of a primary key of a system collection. */
  key(collection: string): SchemaObject;
}

export function pathParam(name: string, description: string, schema: SchemaObject = { type: 'string' }): ParameterObject {
  return { name, in: 'path', required: true, description, schema };
}

export const listOf = (item: SchemaObject): SchemaObject => ({
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: item }, meta: META_SCHEMA },
});

export const arrayOf = (item: SchemaObject): SchemaObject => ({ type: 'array', items: item });

export const oneOrMany = (item: SchemaObject): SchemaObject => ({ oneOf: [item, arrayOf(item)] });

export const freeObject = (description?: string): SchemaObject => ({
  type: 'object', additionalProperties: true, ...(description ? { description } : {}),
});

export function endpoint(method: HttpMethod, path: string, op: OperationObject): Endpoint {
  return { method, path, op };
}
