/** Route groups registered from a manifest and loaded on first use.
 *
 * A group is a module whose mount function registers routes, listed once per half (functions/routes/groups.ts,
 * container/routes/groups.ts); the eager mount of a half is derived from the same list (eagerMount). Importing it pulls its
 * dependencies (GraphQL, the OpenAPI builder, Ajv, Handlebars, ...), which a Lambda cold start should not pay for
 * when the first request is for another group. So the app registers each route of the group at once, with the
 * method and path the manifest records (functions/routes/manifest.ts), in the group's own order: routing, route order
 * and `app.routes` are exactly those of an eager mount. Each registered handler stands for the handler at the same
 * position in the group: the first request reaching one imports the group, runs its mount function against a
 * recording app, checks that what it registered is what the manifest says, and calls the real handler with the
 * same context and `next`; later requests call it directly.
 *
 * The manifest is generated (scripts/route-manifest.ts) and test/lambda/routes.test.ts fails when it is
 * out of date; a group whose routes differ from the manifest at run time answers 500 with that message rather than
 * being served from the wrong routes. */
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';

export type MountRoutes = (app: Hono<AppEnv>) => void;

export interface RouteGroup {
  /** Unique; the manifest's key. */
  name: string;
  /** Imports the group's module and returns its mount function. */
  load: () => Promise<MountRoutes>;
}

/** `[method, path]` of every handler a group registers, in order, per group name. */
export type RouteManifest = Readonly<Record<string, readonly (readonly [string, string])[]>>;

/** Where a stale manifest is regenerated from (in the error it causes). */
export const MANIFEST_COMMAND = 'npx tsx scripts/route-manifest.ts';

export interface RecordedGroup {
  routes: [string, string][];
  handlers: MiddlewareHandler<AppEnv>[];
}

/** Runs a mount function against a fresh app and returns what it registered. `routesOf`: the app whose route table
 * the group sees as `app.routes` while serving (the OpenAPI route checks the served routes against it). */
export function recordGroup(mount: MountRoutes, routesOf?: Hono<AppEnv>): RecordedGroup {
  const recorder = new Hono<AppEnv>();
  const view = routesOf
    ? new Proxy(recorder, {
      get(target, prop) {
        if (prop === 'routes') return routesOf.routes;
        const value: unknown = Reflect.get(target, prop);
        // Hono's prototype methods use private fields: call them on the recorder itself, not on the proxy.
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    })
    : recorder;
  mount(view);
  return {
    routes: recorder.routes.map((r) => [r.method, r.path]),
    handlers: recorder.routes.map((r) => r.handler as MiddlewareHandler<AppEnv>),
  };
}

function sameRoutes(a: readonly (readonly [string, string])[], b: readonly (readonly [string, string])[]): boolean {
  return a.length === b.length && a.every(([m, p], i) => b[i]![0] === m && b[i]![1] === p);
}

export interface LazyRoutes {
  /** Imports every group not loaded yet (resolves when all are). */
  loadAll(): Promise<void>;
  /** Names of the groups imported so far. */
  loaded(): string[];
}

/** Registers every group's routes on `app` from the manifest. `preload`: start importing every group now, in the
 * background (a long-running server); without it a group is imported by the first request that reaches it (Lambda). */
export function mountLazyRoutes(app: Hono<AppEnv>, groups: readonly RouteGroup[], manifest: RouteManifest, opts: { preload?: boolean } = {}): LazyRoutes {
  const loaders: { name: string; isLoaded: () => boolean; load: () => Promise<unknown> }[] = [];
  for (const group of groups) {
    const expected = manifest[group.name];
    if (!expected) throw new Error(`The route manifest has no group "${group.name}": run \`${MANIFEST_COMMAND}\`.`);
    let handlers: MiddlewareHandler<AppEnv>[] | null = null;
    let loading: Promise<MiddlewareHandler<AppEnv>[]> | null = null;
    const load = () => loading ??= group.load().then((mount) => {
      const recorded = recordGroup(mount, app);
      if (!sameRoutes(recorded.routes, expected)) {
        throw new Error(`The routes of group "${group.name}" differ from the route manifest: run \`${MANIFEST_COMMAND}\`.`);
      }
      return (handlers = recorded.handlers);
    }).catch((err: unknown) => {
      loading = null; // a failed import is retried by the next request
      throw err;
    });
    loaders.push({ name: group.name, isLoaded: () => handlers !== null, load });
    expected.forEach(([method, path], i) => {
      const handler: MiddlewareHandler<AppEnv> = (c, next) => (handlers ? handlers[i]!(c, next) : load().then((h) => {
        // The import blocked the loop once: not a sign of load for the pressure limiter.
        c.get('services')?.pressure?.excuseLoading();
        return h[i]!(c, next);
      }));
      if (method === 'ALL') app.all(path, handler);
      else app.on(method, path, handler);
    });
  }
  const lazy: LazyRoutes = {
    async loadAll() {
      await Promise.all(loaders.map((l) => l.load()));
    },
    loaded: () => loaders.filter((l) => l.isLoaded()).map((l) => l.name),
  };
  // Errors surface on the request that needs the group (and the import is retried then).
  if (opts.preload) lazy.loadAll().catch(() => {});
  return lazy;
}

/** The manifest of groups as their modules register them now (imports every group). */
export async function recordManifest(groups: readonly RouteGroup[]): Promise<Record<string, [string, string][]>> {
  const out: Record<string, [string, string][]> = {};
  for (const group of groups) {
    if (out[group.name]) throw new Error(`Two route groups are named "${group.name}".`);
    out[group.name] = recordGroup(await group.load()).routes;
  }
  return out;
}

/** Every group imported now, one after another (modules evaluate in list order, as static imports would), as one
 * mount function that registers them all in order: a half's eager mount (functions/routes/index.ts,
 * container/routes.ts). */
export async function eagerMount(groups: readonly RouteGroup[]): Promise<MountRoutes> {
  const mounts: MountRoutes[] = [];
  for (const group of groups) mounts.push(await group.load());
  return (app) => {
    for (const mount of mounts) mount(app);
  };
}
