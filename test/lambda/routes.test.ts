/** The functions half's route groups (functions/routes/groups.ts), registered from a manifest and imported on first use
 * (functions/routes/lazy.ts, functions/http/lazy-routes.ts): the manifest of both halves is current; the lazy app has
 * exactly the routes of the eager mount (functions/routes/index.ts) in the same order; a group is imported only when a request reaches one of its routes;
 * and the answers, the OpenAPI document (checked against the served routes) included, are those of the eager app. */
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBaseApp } from '../../functions/http/base-app.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { MANIFEST_COMMAND, mountLazyRoutes, type LazyRoutes } from '../../functions/http/lazy-routes.ts';
import { FUNCTION_ROUTE_GROUPS } from '../../functions/routes/groups.ts';
import { mountFunctionRoutes } from '../../functions/routes/index.ts';
import { mountLazyFunctionRoutes } from '../../functions/routes/lazy.ts';
import { CONTAINER_ROUTE_MANIFEST, FUNCTION_ROUTE_MANIFEST } from '../../functions/routes/manifest.ts';
import { manifestSource, recordManifests } from '../../scripts/route-manifest.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

const routesOf = (app: Hono<AppEnv>) => app.routes.map((r) => `${r.method} ${r.path}`);

describe('route manifest', () => {
  it(`is what the groups register now (else run \`${MANIFEST_COMMAND}\`)`, async () => {
    const recorded = await recordManifests();
    expect(recorded).toEqual({ functions: FUNCTION_ROUTE_MANIFEST, container: CONTAINER_ROUTE_MANIFEST });
    // The generator writes the file as it is (a hand edit of the manifest shows here).
    expect(manifestSource(recorded)).toBe(readFileSync(new URL('../../functions/routes/manifest.ts', import.meta.url), 'utf8'));
  });

  it('the lazy mount registers the eager mount\'s routes, in its order', () => {
    const eager = new Hono<AppEnv>();
    mountFunctionRoutes(eager);
    const lazy = new Hono<AppEnv>();
    mountLazyFunctionRoutes(lazy);
    expect(routesOf(lazy)).toEqual(routesOf(eager));
    expect(routesOf(lazy).length).toBeGreaterThan(200);
  });
});

describe('lazy groups (a fake group)', () => {
  const errorsOf = (app: Hono<AppEnv>) => {
    app.onError((err, c) => c.text(err.message, 500));
    return app;
  };

  it('imports a group once, on the first request that reaches it, even when two arrive together', async () => {
    let loads = 0;
    const app = errorsOf(new Hono<AppEnv>());
    const lazy = mountLazyRoutes(app, [{
      name: 'g',
      load: async () => {
        loads++;
        await new Promise((r) => setTimeout(r, 20));
        return (a) => { a.get('/g/:id', (c) => c.text(`g ${c.req.param('id')}`)); };
      },
    }], { g: [['GET', '/g/:id']] });
    expect(lazy.loaded()).toEqual([]);
    expect((await app.request('/other')).status).toBe(404);
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([app.request('/g/1'), app.request('/g/2')]);
    expect([await a.text(), await b.text()]).toEqual(['g 1', 'g 2']);
    expect(loads).toBe(1);
    expect(lazy.loaded()).toEqual(['g']);
  });

  it('a group whose routes differ from the manifest answers 500 naming the command, not from the wrong routes', async () => {
    const app = errorsOf(new Hono<AppEnv>());
    mountLazyRoutes(app, [{ name: 'g', load: async () => (a) => { a.get('/g', (c) => c.text('g')); a.get('/h', (c) => c.text('h')); } }],
      { g: [['GET', '/g']] });
    const res = await app.request('/g');
    expect(res.status).toBe(500);
    expect(await res.text()).toBe(`The routes of group "g" differ from the route manifest: run \`${MANIFEST_COMMAND}\`.`);
  });

  it('a failed import is retried by the next request', async () => {
    let attempt = 0;
    const app = errorsOf(new Hono<AppEnv>());
    mountLazyRoutes(app, [{
      name: 'g',
      load: async () => {
        if (attempt++ === 0) throw new Error('import failed');
        return (a) => { a.get('/g', (c) => c.text('g')); };
      },
    }], { g: [['GET', '/g']] });
    expect(await (await app.request('/g')).text()).toBe('import failed');
    expect(await (await app.request('/g')).text()).toBe('g');
  });

  it('refuses a group the manifest does not know', () => {
    expect(() => mountLazyRoutes(new Hono<AppEnv>(), [{ name: 'new', load: async () => () => {} }], {}))
      .toThrow(`The route manifest has no group "new": run \`${MANIFEST_COMMAND}\`.`);
  });
});

describe('the functions app with lazy groups against the eager one (same services)', () => {
  let t: TestApp;
  let eager: Hono<AppEnv>;
  let lazyApp: Hono<AppEnv>;
  let lazy: LazyRoutes;

  beforeAll(async () => {
    t = await createTestApp();
    await createContentModel(t.services, { seed: true });
    eager = createBaseApp(t.services);
    mountFunctionRoutes(eager);
    lazyApp = createBaseApp(t.services);
    lazy = mountLazyFunctionRoutes(lazyApp, { preload: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = async (app: Hono<AppEnv>, method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.text() };
  };

  it('imports nothing until a request needs it, then only the groups reached', async () => {
    expect(lazy.loaded()).toEqual([]);
    expect(await call(lazyApp, 'GET', '/server/ping')).toEqual({ status: 200, body: 'pong' });
    expect(lazy.loaded()).toEqual(['server']);
    expect((await call(lazyApp, 'GET', '/items/posts?limit=1')).status).toBe(200);
    expect(lazy.loaded()).toEqual(['server', 'items']);
    // Unknown routes load nothing.
    expect((await call(lazyApp, 'GET', '/nowhere')).status).toBe(404);
    expect(lazy.loaded()).toEqual(['server', 'items']);
  });

  it('answers as the eager app across the groups', async () => {
    const reads: [string, string, unknown?][] = [
      ['GET', '/server/info'], ['GET', '/collections/posts'], ['GET', '/fields/posts'], ['GET', '/relations'],
      ['GET', '/items/posts?sort=id&fields=id,title'], ['GET', '/roles'], ['GET', '/policies?sort=name'], ['GET', '/permissions/me'],
      ['GET', '/users/me'], ['GET', '/settings'], ['GET', '/activity?limit=0'], ['GET', '/versions'], ['GET', '/workflows'],
      ['GET', '/notify/logs'], ['GET', '/extensions'], ['GET', '/system/storage-providers'], ['GET', '/files/storage-locations'],
      ['GET', '/app-permissions/me'], ['GET', '/presets'], ['POST', '/notify/validate-template', { template: 'Hi {{name}}' }],
      ['POST', '/graphql', { query: '{ posts(sort: ["id"]) { id title } }' }], ['GET', '/auth/me'],
    ];
    for (const [method, path, body] of reads) {
      const [a, b] = [await call(eager, method, path, body), await call(lazyApp, method, path, body)];
      expect(b, `${method} ${path}`).toEqual(a);
      expect(a.status, `${method} ${path}`).toBeLessThan(500);
    }
  });

  it('serves the same OpenAPI document: every route of every group counts as served, loaded or not', async () => {
    const before = lazy.loaded();
    expect(before).not.toContain('openapi');
    expect(before.length).toBeLessThan(FUNCTION_ROUTE_GROUPS.length - 1);
    const [a, b] = [await call(eager, 'GET', '/server/specs/oas'), await call(lazyApp, 'GET', '/server/specs/oas')];
    expect(a.status).toBe(200);
    expect(JSON.parse(b.body)).toEqual(JSON.parse(a.body));
    // The document is built from the route table, which the manifest completes without importing the groups.
    expect(new Set(lazy.loaded())).toEqual(new Set([...before, 'openapi']));
    await lazy.loadAll();
    expect(lazy.loaded()).toHaveLength(FUNCTION_ROUTE_GROUPS.length);
  });
});
