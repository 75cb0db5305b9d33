/** Turns anything thrown by a handler into the `{errors:[...]}` envelope. */
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { errorEnvelope, RouteNotFoundError, ServiceError, ContentTooLargeError, type ErrorBody } from '../../core/errors.ts';
import type { Accountability } from '../../core/access/accountability.ts';
import type { Config } from '../../core/config.ts';
import { carriesToken } from './authenticate.ts';
import type { AppEnv } from './env.ts';

function errorBody(err: unknown, config: Config): { status: number; body: ErrorBody } {
  let input = err;
  if (err instanceof HTTPException && !(err instanceof ServiceError)) {
    input = err.status === 413 ? new ContentTooLargeError() : err;
  }
  return errorEnvelope(input, config.logLevel);
}

export function errorResponse(c: Context, err: unknown, config: Config): Response {
  const { status, body } = errorBody(err, config);
  retryAfterOn503(c, status, config);
  return c.json(body, status as 400);
}

/** Paths whose 401 answers carry the Bearer challenge (RFC 6750) their clients look for: an MCP client learns from
 * it that the server wants a token (docs/mcp.md). */
const BEARER_CHALLENGE_PATHS = new Set(['/mcp']);

function bearerChallengeOn401(c: Context, status: number): void {
  if (status !== 401 || !BEARER_CHALLENGE_PATHS.has(c.req.path)) return;
  c.header('WWW-Authenticate', carriesToken(c) ? 'Bearer realm="svc", error="invalid_token"' : 'Bearer realm="svc"');
}

/** Every 503 (database or shared store unavailable, pressure) tells the client when to try again. */
function retryAfterOn503(c: Context, status: number, config: Config): void {
  if (status === 503) c.header('Retry-After', String(config.pressure.retryAfterSeconds));
}

/** The `request.error` filter (SPEC.md > Events 2): hooks may rewrite the error list before it is sent. A hook
 * that fails leaves the list as it was (an error while reporting an error must not hide the first one). */
async function filteredErrorResponse(c: Context<AppEnv>, err: unknown, config: Config): Promise<Response> {
  const { status, body } = errorBody(err, config);
  const services = c.get('services');
  if (services?.events.hasFilters('request.error')) {
    try {
      const schema = c.get('schema') ?? await services.schema.get();
      const accountability = c.get('accountability') ?? null;
      const ctx = { db: services.database.db, schema, accountability: accountability ?? anonymous(), config, events: services.events };
      const errors = await services.events.runFilters('request.error', body.errors, { status }, ctx);
      if (Array.isArray(errors) && errors.length > 0) body.errors = errors;
    } catch (filterError) {
      if (config.logLevel !== 'silent') console.error('request.error filter failed:', (filterError as Error)?.message);
    }
  }
  retryAfterOn503(c, status, config);
  bearerChallengeOn401(c, status);
  return c.json(body, status as 400);
}

function anonymous(): Accountability {
  return { user: null, role: null, roles: [], policies: [], admin: false, app: false, ip: null, userAgent: null, origin: null };
}

export function installErrorHandling(app: Hono<AppEnv>, config: Config): void {
  app.onError((err, c) => filteredErrorResponse(c, err, config));
  app.notFound((c) => filteredErrorResponse(c, new RouteNotFoundError(c.req.path), config));
}
