import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { testEnv } from '../helpers/template.ts';
import { loadConfig } from '../../core/config.ts';
import { openDatabase } from '../../core/db/database.ts';
import { createServices } from '../../core/services.ts';
import { MemoryStore } from '../../core/store/index.ts';
import { createContainerApp, createStandaloneApp } from '../../container/app.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

describe('server endpoints', () => {
  it('answers ping with text pong', async () => {
    const res = await t.req('GET', '/server/ping', undefined, { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toBe('pong');
  });

  it('reports health', async () => {
    const res = await t.req('GET', '/server/health', undefined, { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('reports 503 when the database does not answer', async () => {
    // A Postgres URL on a port nothing listens on: every query fails.
    const dead = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:9/none', poolMax: 1 });
    const services = await createServices(loadConfig(testEnv()), { database: dead, store: new MemoryStore(), skipMigrations: true });
    const res = await createStandaloneApp(services).request('/server/health');
    expect(res.status).toBe(503);
    expect((await res.json()).status).toBe('error');
    await services.close();
  });

  it('reports project info', async () => {
    const res = await t.req('GET', '/server/info', undefined, { token: null });
    expect(res.status).toBe(200);
    expect(res.body.data.project).toMatchObject({ name: 'svc', node_env: expect.any(String) });
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    const res = await t.req('GET', '/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('authenticates on every route: a garbage or forged token on ping and health is 401 INVALID_TOKEN', async () => {
    for (const path of ['/server/ping', '/server/health', '/server/info']) {
      for (const token of ['garbage', 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJpZCI6IngifQ.']) {
        const res = await t.req('GET', path, undefined, { token });
        expect(res.status, `${path} ${token}`).toBe(401);
        expect(res.body.errors[0].extensions.code).toBe('INVALID_TOKEN');
      }
      const ok = await t.req('GET', path);
      expect(ok.status, path).toBe(200);
    }
    const query = await t.req('GET', '/server/ping?access_token=garbage', undefined, { token: null });
    expect(query.status).toBe(401);
  });

  it('rejects an unknown token', async () => {
    const res = await t.req('GET', '/server/info', undefined, { token: 'nope' });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_TOKEN');
  });
});

describe('the container half on its own', () => {
  it('answers health checks and nothing of the functions half', async () => {
    const app = createContainerApp(t.services);
    expect((await app.request('/server/health')).status).toBe(200);
    expect(await (await app.request('/server/ping')).text()).toBe('pong');
    expect((await app.request('/collections', { headers: { authorization: 'Bearer static-admin-token' } })).status).toBe(404);
  });
});
