/** What `npm start` serves (container/lazy-app.ts): the long-running apps with route groups imported on first use
 * have the routes of the eager apps (container/app.ts) in the same order, and a container group answers as there
 * (an upload, its asset, an export), imported when its first request arrives. */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContainerApp, createStandaloneApp } from '../../container/app.ts';
import { createLazyContainerApp, createLazyStandaloneApp } from '../../container/lazy-app.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { filesApp, multipart, send, type FilesTestApp } from '../files/helpers.ts';

const routesOf = (app: Hono<AppEnv>) => app.routes.map((r) => `${r.method} ${r.path}`);

describe('lazy long-running apps', () => {
  let f: FilesTestApp;
  beforeAll(async () => {
    f = await filesApp();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('register the eager apps\' routes in the same order', () => {
    const standalone = routesOf(createLazyStandaloneApp(f.t.services));
    expect(standalone).toEqual(routesOf(createStandaloneApp(f.t.services)));
    expect(standalone.length).toBeGreaterThan(220);
    expect(routesOf(createLazyContainerApp(f.t.services))).toEqual(routesOf(createContainerApp(f.t.services)));
  });

  it('serve an upload, its asset and an export as the eager app does', async () => {
    const lazy = createLazyStandaloneApp(f.t.services);
    const text = 'hello from a lazily loaded route group';
    const up = await send({ ...f.t, app: lazy }, 'POST', '/files', multipart([{ name: 'file', filename: 'hello.txt', type: 'text/plain', data: text }]));
    expect(up.status).toBe(200);
    const id = up.body.data.id as string;
    const get = (app: Hono<AppEnv>, path: string) => app.request(path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const [lazyAsset, eagerAsset] = [await get(lazy, `/assets/${id}`), await get(f.t.app, `/assets/${id}`)];
    expect(lazyAsset.status).toBe(200);
    expect(await lazyAsset.text()).toBe(text);
    expect(lazyAsset.headers.get('content-type')).toBe(eagerAsset.headers.get('content-type'));
    await eagerAsset.arrayBuffer();
    const [lazyExport, eagerExport] = [await get(lazy, '/utils/export/svc_files?export=json&fields=id,filename_download'), await get(f.t.app, '/utils/export/svc_files?export=json&fields=id,filename_download')];
    expect(lazyExport.status).toBe(200);
    expect(await lazyExport.text()).toBe(await eagerExport.text());
  });
});
