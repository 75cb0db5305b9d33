import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';

// A shared store (Redis) that cannot be reached: nothing listens on port 1.
let t: TestApp;
beforeAll(async () => { t = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1' } }); });
afterAll(async () => { await t.close(); });

describe('shared store outage', () => {
  it('keeps serving requests with the schema it has', async () => {
    const r = await t.req('GET', '/server/info');
    expect(r.status).toBe(200);
    const c = await t.req('GET', '/collections');
    expect(c.status).toBe(200);
  });

  it('answers a failed login with 401, not 500 (the lockout counter is skipped)', async () => {
    const r = await t.req('POST', '/auth/login', { email: ADMIN_EMAIL, password: 'wrong-password' }, { token: null });
    expect(r.status).toBe(401);
    expect(r.body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
  });
});
