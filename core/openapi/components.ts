/** Shared components: the query parameters of SPEC.md > Query parameters, the error envelope and the
 * standard error responses, the list `meta`, and the security schemes (Bearer header, `access_token` query
 * parameter: functions/http/authenticate.ts reads both). */
import type { ParameterObject, Reference, ResponseObject, SchemaObject, SecuritySchemeObject } from './types.ts';

const list = (description: string): SchemaObject => ({ type: 'array', items: { type: 'string' }, description });
const object = (description: string): SchemaObject => ({ type: 'object', additionalProperties: true, description });

export const PARAMETERS: Record<string, ParameterObject> = {
  Fields: {
    name: 'fields', in: 'query', style: 'form', explode: false,
    description: 'Fields to return: comma list; dot notation for relations (`author.name`); `*` for all direct fields.',
    schema: list('Field names'),
  },
  Filter: {
    name: 'filter', in: 'query', style: 'deepObject', explode: true,
    description: 'Row filter `{field: {_operator: value}}`, nested with `_and`/`_or` (`filter[title][_eq]=Hello`).',
    schema: object('Filter object'),
  },
  Sort: {
    name: 'sort', in: 'query', style: 'form', explode: false,
    description: 'Ordering: comma list of fields; prefix `-` for descending.',
    schema: list('Sort fields'),
  },
  Limit: { name: 'limit', in: 'query', description: 'Page size; `-1` returns all records.', schema: { type: 'integer', minimum: -1 } },
  Offset: { name: 'offset', in: 'query', description: 'Records to skip.', schema: { type: 'integer', minimum: 0 } },
  Page: { name: 'page', in: 'query', description: 'Page number (1-based), with `limit`.', schema: { type: 'integer', minimum: 1 } },
  Search: { name: 'search', in: 'query', description: 'Full-text search across searchable fields.', schema: { type: 'string' } },
  Meta: {
    name: 'meta', in: 'query',
    description: 'Comma list of `total_count` (whole collection) and `filter_count` (matches of the filter); adds `meta` to the response.',
    schema: { type: 'string' },
  },
  Deep: {
    name: 'deep', in: 'query', style: 'deepObject', explode: true,
    description: 'Query options per relation: `deep[relation][_limit]=5`; keys `_fields`, `_filter`, `_sort`, `_limit`, `_offset`, `_page`, `_search`.',
    schema: object('Deep object'),
  },
  Aggregate: {
    name: 'aggregate', in: 'query', style: 'deepObject', explode: true,
    description: 'Aggregation function -> field (`aggregate[count]=*`); functions count, sum, avg, min, max, countDistinct.',
    schema: object('Aggregate object'),
  },
  GroupBy: {
    name: 'groupBy', in: 'query', style: 'form', explode: false,
    description: 'Fields to group aggregates by.',
    schema: list('Field names'),
  },
  Version: {
    name: 'version', in: 'query',
    description: 'Preview: the item with this content version\'s delta overlaid (SPEC.md > Versions).',
    schema: { type: 'string', format: 'uuid' },
  },
};

const ref = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });

/** Parameters of a list read. */
export const LIST_PARAMETERS: Reference[] = ['Fields', 'Filter', 'Sort', 'Limit', 'Offset', 'Page', 'Search', 'Meta', 'Deep', 'Aggregate', 'GroupBy'].map(ref);
/** Parameters of a single-record read (and of writes that answer records). */
export const ONE_PARAMETERS: Reference[] = ['Fields', 'Deep'].map(ref);
export const VERSION_PARAMETER: Reference = ref('Version');

export const ERROR_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['message', 'extensions'],
        properties: {
          message: { type: 'string' },
          extensions: {
            type: 'object',
            required: ['code'],
            properties: {
              code: { type: 'string', description: 'Stable error code (SPEC.md > Errors), e.g. FORBIDDEN, INVALID_PAYLOAD' },
              reason: { type: 'string', description: 'Raw database message; only at debug or trace log level' },
            },
            additionalProperties: true,
          },
        },
      },
    },
  },
};

export const META_COMPONENT: SchemaObject = {
  type: 'object',
  description: 'Present only when `meta` is requested.',
  properties: { total_count: { type: 'integer' }, filter_count: { type: 'integer' } },
};

/** The query object of POST /items/{collection}/search and of batch writes by `query`. */
export const QUERY_COMPONENT: SchemaObject = {
  type: 'object',
  description: 'A query object with the keys of the query parameters.',
  properties: {
    fields: { type: 'array', items: { type: 'string' } },
    filter: { type: 'object', additionalProperties: true },
    sort: { type: 'array', items: { type: 'string' } },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    page: { type: 'integer' },
    search: { type: 'string' },
    meta: { type: 'string' },
    deep: { type: 'object', additionalProperties: true },
    aggregate: { type: 'object', additionalProperties: true },
    groupBy: { type: 'array', items: { type: 'string' } },
  },
};

/** References to the components above (the document registers them under these names). */
export const META_SCHEMA: SchemaObject = { $ref: '#/components/schemas/Meta' };
export const QUERY_SCHEMA: SchemaObject = { $ref: '#/components/schemas/Query' };

const errorResponse = (description: string): ResponseObject => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** Standard error responses, keyed by status. */
export const ERROR_RESPONSES: Record<string, [name: string, response: ResponseObject]> = {
  400: ['BadRequest', errorResponse('Invalid payload or query (INVALID_PAYLOAD, INVALID_QUERY)')],
  401: ['Unauthorized', errorResponse('Invalid, expired or revoked token (INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED)')],
  403: ['Forbidden', errorResponse('Not permitted (FORBIDDEN)')],
  404: ['NotFound', errorResponse('Not found (NOT_FOUND, COLLECTION_NOT_FOUND, FIELD_NOT_FOUND)')],
  409: ['Conflict', errorResponse('Duplicate value for a unique field (RECORD_NOT_UNIQUE)')],
  413: ['ContentTooLarge', errorResponse('Body above MAX_PAYLOAD_SIZE or upload above FILES_MAX_UPLOAD_SIZE (CONTENT_TOO_LARGE)')],
  429: [
    'TooManyRequests',
    {
      ...errorResponse('Rate limit exceeded (REQUESTS_EXCEEDED)'),
      headers: { 'Retry-After': { description: 'Seconds until the limit resets', schema: { type: 'integer' } } },
    },
  ],
  503: ['ServiceUnavailable', errorResponse('Server under pressure (SERVICE_UNAVAILABLE)')],
};

export function responseRef(status: number): Reference {
  return { $ref: `#/components/responses/${ERROR_RESPONSES[status][0]}` };
}

export const SECURITY_SCHEMES: Record<string, SecuritySchemeObject> = {
  BearerAuth: {
    type: 'http', scheme: 'bearer',
    description: 'Access token, static user token or session token: `Authorization: Bearer <token>`.',
  },
  AccessTokenQuery: { type: 'apiKey', in: 'query', name: 'access_token', description: 'The same token as a query parameter.' },
};

/** Either scheme, or none: anonymous requests act as the Public role (SPEC.md > Authentication 2). */
export const SECURITY: Record<string, string[]>[] = [{ BearerAuth: [] }, { AccessTokenQuery: [] }, {}];
