/** One operation from a short description: success shape, request body, and the standard error responses
 * that apply (401/403/429/503 everywhere; 400 with a body or query; 413 with a body; 404 on paths with
 * parameters; 409 where unique values are written). */
import { responseRef } from './components.ts';
import type { OperationObject, ParameterObject, Reference, ResponseObject, SchemaObject } from './types.ts';

export interface OperationSpec {
  id: string;
  summary: string;
  tag: string;
  description?: string;
  parameters?: (ParameterObject | Reference)[];
  /** JSON request body schema. */
  body?: SchemaObject;
  bodyRequired?: boolean;
  /** Other request content (multipart uploads, raw chunks). */
  content?: Record<string, SchemaObject>;
  /** Schema of `data` in a `{data}` answer; or a whole-body schema with `raw: true`. */
  data?: SchemaObject;
  raw?: boolean;
  /** A response that is not JSON (text, bytes). */
  media?: { type: string; schema: SchemaObject };
  /** Success status (200 by default; 204 means no body). */
  status?: 200 | 201 | 204;
  /** A write can also answer 204 (the caller may not read the written records back). */
  maybeEmpty?: boolean;
  pathParams?: boolean;
  unique?: boolean;
  /** Public operation (no credential needed). */
  anonymous?: boolean;
  /** Extra documented responses. */
  extra?: Record<string, ResponseObject>;
}

function success(spec: OperationSpec): Record<string, ResponseObject> {
  const status = spec.status ?? 200;
  const out: Record<string, ResponseObject> = {};
  if (status === 204) out['204'] = { description: 'No content' };
  else if (spec.media) out[String(status)] = { description: 'Success', content: { [spec.media.type]: { schema: spec.media.schema } } };
  else if (spec.data) {
    const schema: SchemaObject = spec.raw ? spec.data : { type: 'object', required: ['data'], properties: { data: spec.data } };
    out[String(status)] = { description: 'Success', content: { 'application/json': { schema } } };
  } else out[String(status)] = { description: 'Success' };
  if (spec.maybeEmpty && status !== 204) out['204'] = { description: 'Written; the caller may not read the records back' };
  return out;
}

export function operation(spec: OperationSpec): OperationObject {
  const hasBody = spec.body !== undefined || spec.content !== undefined;
  const statuses = [401, 403, 429, 503];
  if (hasBody || (spec.parameters?.length ?? 0) > 0) statuses.push(400);
  if (hasBody) statuses.push(413);
  if (spec.pathParams) statuses.push(404);
  if (spec.unique) statuses.push(409);
  const responses: OperationObject['responses'] = { ...success(spec), ...spec.extra };
  for (const status of statuses.sort()) responses[String(status)] ??= responseRef(status);
  const op: OperationObject = { operationId: spec.id, summary: spec.summary, tags: [spec.tag], responses };
  if (spec.description) op.description = spec.description;
  if (spec.parameters?.length) op.parameters = spec.parameters;
  if (hasBody) {
    const content: Record<string, { schema: SchemaObject }> = {};
    if (spec.body) content['application/json'] = { schema: spec.body };
    for (const [type, schema] of Object.entries(spec.content ?? {})) content[type] = { schema };
    op.requestBody = { required: spec.bodyRequired ?? true, content };
  }
  if (spec.anonymous) op.security = [{}];
  return op;
}
