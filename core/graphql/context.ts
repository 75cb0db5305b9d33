/** What every resolver receives: the caller's service context and the request's shared root reads. */
import type { GraphQLSchema } from 'graphql/index.js';
import type { ServiceContext } from '../context.ts';

export interface GraphqlContext {
  service: ServiceContext;
  /** Root reads of this request by canonical key (field, arguments, compiled query): identical root fields
   * under different aliases share one promise, so aliases cannot multiply work. */
  reads: Map<string, Promise<unknown>>;
  /** A POST body the HTTP layer has already read (under MAX_PAYLOAD_SIZE) and parsed: yoga takes the GraphQL
   * parameters from it instead of reading the request stream again. */
  body?: unknown;
  /** The caller's generated schema (core/graphql/cache.ts), resolved before yoga runs. */
  schema?: GraphQLSchema;
}

/** What a field of a generated object type is: a column (read by property access) or a relation. */
export type FieldMeta =
  | { kind: 'column' }
  | { kind: 'm2o'; related: string }
  | { kind: 'o2m'; related: string }
  /** `{field}_func`: its selected members are the REST fields `member(field)`. */
  | { kind: 'fn'; field: string };

export function fieldMetaOf(extensions: Readonly<Record<string, unknown>> | null | undefined): FieldMeta | undefined {
  return extensions?.svc as FieldMeta | undefined;
}
