/** GraphQL results in the service's error envelope: every error carries `extensions.code`; a ServiceError
 * thrown by a service keeps its code. Status: request errors (syntax, validation, limits, variables) are
 * 400 INVALID_QUERY; when all errors share one status the response has it; errors of different statuses
 * answer 200 with the partial data, or 500 without data. Unexpected errors are INTERNAL_SERVER_ERROR with
 * the message hidden (the database text only at LOG_LEVEL debug/trace as extensions.reason). */
import { GraphQLError, type ExecutionResult } from 'graphql/index.js';
import { InternalServerError, normalizeErrors, ServiceError } from '../errors.ts';

function rootCause(err: GraphQLError): unknown {
  let cause: unknown = err.originalError;
  while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
  return cause instanceof GraphQLError ? undefined : cause;
}

const CODE_BY_STATUS: Record<number, string> = { 415: 'UNSUPPORTED_MEDIA_TYPE', 413: 'CONTENT_TOO_LARGE' };

export interface NormalizedResult {
  result: ExecutionResult;
  status: number;
  headers: Record<string, string>;
}

export function normalizeResult(result: ExecutionResult, opts: { expose: boolean; log: (err: unknown) => void }): NormalizedResult | null {
  if (!result.errors?.length) return null;
  const statuses = new Set<number>();
  const headers: Record<string, string> = {};
  const errors: GraphQLError[] = [];
  for (const err of result.errors) {
    const http = err.extensions?.http as { status?: number; headers?: Record<string, string> } | undefined;
    if (http?.headers) Object.assign(headers, http.headers);
    const cause = rootCause(err);
    const base = { nodes: err.nodes, source: err.source, positions: err.positions, path: err.path };
    if (cause === undefined && err.path === undefined) {
      // Syntax, validation, limit and variable errors: the request itself is malformed.
      const status = http?.status && http.status >= 400 ? http.status : 400;
      statuses.add(status);
      errors.push(new GraphQLError(err.message, { ...base, extensions: { code: CODE_BY_STATUS[status] ?? 'INVALID_QUERY' } }));
      continue;
    }
    const { errors: list, unexpected } = normalizeErrors(cause ?? new InternalServerError());
    if (unexpected || cause === undefined) opts.log(unexpected ?? err);
    for (const e of list) {
      statuses.add(e.status);
      const extensions: Record<string, unknown> = { code: e.code, ...e.extensions };
      if (opts.expose && (e.reason || unexpected instanceof Error)) extensions.reason = e.reason ?? (unexpected as Error).message;
      errors.push(new GraphQLError(e instanceof ServiceError ? e.message : 'An unexpected error occurred.', { ...base, extensions }));
    }
  }
  const hasData = result.data !== undefined && result.data !== null;
  const status = statuses.size === 1 ? [...statuses][0] : hasData ? 200 : 500;
  return { result: { ...result, errors }, status, headers };
}
