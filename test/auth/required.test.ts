/** Every route SPEC.md marks "Auth" (any authenticated principal) answers an anonymous caller 401, even when the
 * Public role may read the collection behind it; with a credential it is not a 401. The list below is written
 * from SPEC.md's endpoint tables, independently of the app's own table. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_PASSWORD } from '../helpers/template.ts';

const SOME_ID = randomUUID();

const AUTH_ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/roles'],
  ['GET', `/roles/${SOME_ID}`],
  ['GET', '/policies'],
  ['GET', `/policies/${SOME_ID}`],
  ['GET', '/permissions/me'],
  ['GET', '/users'],
  ['GET', `/users/${SOME_ID}`],
  ['GET', '/users/me'],
  ['PATCH', '/users/me', { first_name: 'Anon' }],
  ['POST', '/users/me/tfa/enable', { password: ADMIN_PASSWORD }],
  ['POST', '/users/me/tfa/disable', { otp: '123456' }],
  ['POST', '/users/me/tfa/generate', { password: ADMIN_PASSWORD }],
  ['GET', '/auth/me'],
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  // The Public role may read everything behind these routes: the 401 must not depend on permissions.
  const db = t.services.database.db;
  const [{ public_role }] = await run<{ public_role: string }>(db, 'select public_role from svc_settings where id = 1');
  const [{ policy }] = await run<{ policy: string }>(db, 'select policy from svc_access where role = $1', [public_role]);
  for (const collection of ['svc_roles', 'svc_policies', 'svc_permissions', 'svc_users']) {
    await run(db, "insert into svc_permissions (policy, collection, action, fields) values ($1, $2, 'read', '[\"*\"]')", [policy, collection]);
  }
  await t.services.schema.invalidate();
});
afterAll(async () => { await t.close(); });

describe('routes marked Auth in SPEC.md', () => {
  it.each(AUTH_ROUTES)('%s %s answers 401 without a token', async (method, path, body) => {
    const res = await t.req(method, path, body, { token: null });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
  });

  it.each(AUTH_ROUTES)('%s %s is not refused as anonymous with a token', async (method, path, body) => {
    const res = await t.req(method, path, body);
    // Other 401s are the route's own answer (e.g. a wrong one-time code once two-factor is on).
    expect(res.status === 401 && res.body.errors[0].extensions.code === 'INVALID_CREDENTIALS').toBe(false);
  });

  it('GET /permissions/me answers the caller\'s permissions with a token, an empty object for an admin', async () => {
    const res = await t.req('GET', '/permissions/me');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expect.any(Object));
  });

  it('routes marked None stay open to anonymous callers', async () => {
    expect((await t.req('GET', '/server/ping', undefined, { token: null })).status).toBe(200);
    expect((await t.req('GET', '/server/info', undefined, { token: null })).status).toBe(200);
    expect((await t.req('GET', '/server/health', undefined, { token: null })).status).toBe(200);
    expect((await t.req('POST', '/auth/login', {}, { token: null })).status).toBe(400);
  });
});
