/** Generated schemas, cached per schema overview object (a schema or permission change loads a new overview,
 * so stale schemas are dropped with it) and per caller shape: endpoint, admin and app flags, role, policies
 * (and a share's collection). Never rebuilt per request. */
import type { GraphQLSchema } from 'graphql/index.js';
import { loadPermissions } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { buildGraphqlSchema } from './schema.ts';

const cache = new WeakMap<object, Map<string, Promise<GraphQLSchema>>>();
let builds = 0;

/** How many schemas this process has built (tests check that requests reuse them). */
export function schemaBuildCount(): number {
  return builds;
}

function keyOf(ctx: ServiceContext, system: boolean): string {
  const a = ctx.accountability;
  return `${system ? 1 : 0}|${a.admin ? 1 : 0}|${a.app ? 1 : 0}|${a.role ?? ''}|${[...a.policies].sort().join(',')}|${a.share?.collection ?? ''}`;
}

export function graphqlSchemaFor(ctx: ServiceContext, system: boolean): Promise<GraphQLSchema> {
  let byCaller = cache.get(ctx.schema);
  if (!byCaller) {
    byCaller = new Map();
    cache.set(ctx.schema, byCaller);
  }
  const key = keyOf(ctx, system);
  let schema = byCaller.get(key);
  if (!schema) {
    schema = loadPermissions(ctx).then((permissions) => {
      builds++;
      return buildGraphqlSchema({ schema: ctx.schema, permissions, system, admin: ctx.accountability.admin });
    });
    byCaller.set(key, schema);
    schema.catch(() => byCaller!.delete(key));
  }
  return schema;
}
