/** The functions half's route groups (./groups.ts) for an app that imports them when first needed
 * (functions/http/lazy-routes.ts), registered from the generated ./manifest.ts. The functions half uses it (a Lambda
 * cold start then loads no group before a request reaches it), and `npm start` too (container/lazy-app.ts).
 * test/lambda/routes.test.ts checks that it registers the routes of the eager mount (./index.ts) in the same order and
 * that the manifest is current (`npx tsx scripts/route-manifest.ts` regenerates it). */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { mountLazyRoutes, type LazyRoutes } from '../http/lazy-routes.ts';
import { FUNCTION_ROUTE_GROUPS } from './groups.ts';
import { FUNCTION_ROUTE_MANIFEST } from './manifest.ts';

/** `preload`: import every group in the background now (a long-running server); without it each group is imported
 * by the first request that reaches it (Lambda). */
export function mountLazyFunctionRoutes(app: Hono<AppEnv>, opts: { preload?: boolean } = {}): LazyRoutes {
  return mountLazyRoutes(app, FUNCTION_ROUTE_GROUPS, FUNCTION_ROUTE_MANIFEST, opts);
}
