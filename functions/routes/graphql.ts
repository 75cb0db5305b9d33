/** POST|GET /graphql and /graphql/system (SPEC.md > GraphQL): the request body is read under MAX_PAYLOAD_SIZE,
 * then core/graphql runs it with the caller's accountability. */
import type { Context, Hono } from 'hono';
import { InvalidPayloadError } from '../../core/errors.ts';
import { handleGraphql } from '../../core/graphql/server.ts';
import { readJsonText, readText } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

/** The POST body as GraphQL parameters: JSON (application/json or application/*+json), or a bare document
 * (application/graphql; neither can be sent cross-site without a CORS preflight). Other types, and a body
 * without a type, are UNSUPPORTED_MEDIA_TYPE; broken JSON 400 INVALID_PAYLOAD. */
async function postBody(c: Context<AppEnv>): Promise<unknown> {
  const header = c.req.header('content-type');
  if (header?.split(';')[0].trim().toLowerCase() === 'application/graphql') return { query: await readText(c) };
  const text = await readJsonText(c);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidPayloadError('Invalid JSON body.');
  }
}

function handler(system: boolean) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const service = await serviceContext(c);
    const reply = c.req.method === 'POST'
      ? await handleGraphql(c.req.raw, service, system, await postBody(c))
      : await handleGraphql(c.req.raw, service, system);
    // Hono's own body (small JSON): @hono/node-server writes it directly, no fetch-API Response to stream.
    return c.body(reply.body, reply.status as 200, reply.headers);
  };
}

export function mountGraphqlRoutes(app: Hono<AppEnv>): void {
  app.on(['GET', 'POST'], '/graphql', handler(false));
  app.on(['GET', 'POST'], '/graphql/system', handler(true));
}
