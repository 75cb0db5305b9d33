/** Custom endpoints of extensions, each a Hono router mounted under /{id} on the app that serves JSON endpoints
 * (functions, or standalone), behind the same authentication and rate limiting as every route. An endpoint whose
 * id would shadow a built-in route, or whose setup throws, is logged and left out. */
import { Hono, type Context } from 'hono';
import type { ExtensionContext, ItemsApi } from '../../core/extensions/api.ts';
import type { ExtensionHost } from '../../core/extensions/host.ts';
import { itemsApi } from '../../core/extensions/items-api.ts';
import { serviceContext } from './context.ts';
import type { AppEnv } from './env.ts';

/** What an endpoint's setup function receives besides its router. */
export interface EndpointContext extends ExtensionContext {
  /** Items of a collection under the accountability of the request `c`. */
  items(c: Context<AppEnv>, collection: string): ItemsApi;
}

export function mountExtensionEndpoints(app: Hono<AppEnv>, host: ExtensionHost): void {
  const taken = new Set(app.routes.map((r) => r.path.split('/')[1]).filter(Boolean));
  for (const endpoint of host.endpoints) {
    const log = (message: string) => console.error(`extension "${endpoint.folder}": ${message}`);
    if (taken.has(endpoint.id)) {
      log(`endpoint /${endpoint.id} would shadow a built-in route and is not mounted`);
      continue;
    }
    const router = new Hono<AppEnv>();
    const context: EndpointContext = {
      logger: { info: console.log, warn: console.warn, error: console.error },
      env: process.env,
      items: (c, collection) => itemsApi(() => serviceContext(c), collection),
    };
    try {
      const result = endpoint.handler(router, context);
      if (result instanceof Promise) throw new Error('an endpoint setup function must be synchronous');
    } catch (err) {
      log(`endpoint setup failed and /${endpoint.id} is not mounted: ${(err as Error).message}`);
      continue;
    }
    app.route(`/${endpoint.id}`, router);
    taken.add(endpoint.id);
  }
}
