/** POST|GET /graphql and /graphql/system (SPEC.md > GraphQL): the request body is read under MAX_PAYLOAD_SIZE,
 * then core/graphql runs it with the caller's accountability. */
import type { Context, Hono } from 'hono';
import { handleGraphql } from '../../core/graphql/server.ts';
import { readText } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

function handler(system: boolean) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const service = await serviceContext(c);
    let request = c.req.raw;
    if (c.req.method === 'POST') {
      const body = await readText(c);
      request = new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body });
    }
    return handleGraphql(request, service, system);
  };
}

export function mountGraphqlRoutes(app: Hono<AppEnv>): void {
  app.on(['GET', 'POST'], '/graphql', handler(false));
  app.on(['GET', 'POST'], '/graphql/system', handler(true));
}
