import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

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

  it('rejects an unknown token', async () => {
    const res = await t.req('GET', '/server/info', undefined, { token: 'nope' });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_TOKEN');
  });
});
