import type { Context } from 'hono';
import type { ServiceContext } from '../../core/context.ts';
import type { AppEnv } from './env.ts';

/** The core ServiceContext of a request: root executor, current schema, the caller. */
export async function serviceContext(c: Context<AppEnv>): Promise<ServiceContext> {
  const services = c.get('services');
  return {
    db: services.database.db,
    schema: c.get('schema') ?? await services.schema.get(),
    accountability: c.get('accountability'),
    config: services.config,
    events: services.events,
  };
}

export function jsonText(c: Context<AppEnv>, body: string, status: 200 | 201 = 200): Response {
  return c.body(body, status, { 'content-type': 'application/json; charset=utf-8' });
}
