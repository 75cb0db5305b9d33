import type { Context } from 'hono';
import type { SchemaServiceContext } from '../../core/schema/ddl/index.ts';
import type { AppEnv } from '../http/env.ts';

/** The caller and ports a schema-management call needs, taken from the request. */
export function schemaContext(c: Context<AppEnv>): SchemaServiceContext {
  const services = c.get('services');
  return { db: services.database.db, cache: services.schema, accountability: c.get('accountability'), config: services.config };
}
