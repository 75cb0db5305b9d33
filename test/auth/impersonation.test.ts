/** POST /auth/impersonate and /auth/impersonate/stop: who may, activity rows, impersonated_by stamping, revocation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] };
let support: { user: string; role: string };
let editor: { user: string; role: string };
let plain: { user: string };
let adminId: string;

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  support = await createPrincipal(t.services, { token: 'support', permissions: [] });
  editor = await createPrincipal(t.services, { token: 'editor', permissions: [{ collection: 'posts', action: 'create' }, { collection: 'posts', action: 'read' }] });
  plain = await createPrincipal(t.services, { token: 'plain', permissions: [] });
  // impersonate_access on the parent role is inherited by the child.
  const parent = (await t.req('POST', '/roles', { name: 'Support parent', impersonate_access: true })).body.data;
  await t.req('PATCH', `/roles/${support.role}`, { parent });
  adminId = (await q<{ id: string }>("select id from svc_users where token = 'static-admin-token'"))[0].id;
});
afterAll(() => t.close());

describe('impersonation', () => {
  it('acts as the target, stamps impersonated_by on activity, and stop revokes the token', async () => {
    const res = await t.req('POST', '/auth/impersonate', { user: editor.user }, { token: 'support', headers: { 'user-agent': 'ua-test' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { access_token: expect.any(String), expires: 900000 } });
    const token = res.body.data.access_token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ id: editor.user, impersonated_by: support.user, iss: 'svc' });

    expect((await t.req('GET', '/auth/me?fields=id', undefined, { token })).body).toEqual({ data: { id: editor.user } });
    const created = await t.req('POST', '/items/posts', { title: 'by impersonation' }, { token });
    expect(created.status).toBe(200);
    const [row] = await q('select action, "user", impersonated_by from svc_activity where collection = $1 and item = $2', ['posts', String(created.body.data)]);
    expect(row).toEqual({ action: 'create', user: editor.user, impersonated_by: support.user });
    const nested = await t.req('POST', '/items/posts', [{ title: 'batch a' }, { title: 'batch b' }], { token });
    expect(nested.status).toBe(200);
    const batch = await q('select impersonated_by from svc_activity where collection = $1 and item = any($2)', ['posts', nested.body.data.map(String)]);
    expect(batch).toEqual([{ impersonated_by: support.user }, { impersonated_by: support.user }]);

    expect((await t.req('POST', '/auth/impersonate/stop', undefined, { token })).status).toBe(204);
    const after = await t.req('GET', '/items/posts', undefined, { token });
    expect(after.status).toBe(401);
    expect(after.body.errors[0].extensions.code).toBe('TOKEN_REVOKED');

    const log = await q('select action, "user", collection, item, impersonated_by, user_agent from svc_activity where action like $1 order by id', ['impersonation.%']);
    expect(log).toEqual([
      { action: 'impersonation.started', user: editor.user, collection: 'svc_users', item: editor.user, impersonated_by: support.user, user_agent: 'ua-test' },
      { action: 'impersonation.stopped', user: editor.user, collection: 'svc_users', item: editor.user, impersonated_by: support.user, user_agent: null },
    ]);
    // Ordinary requests are not stamped.
    const own = await t.req('POST', '/items/posts', { title: 'by editor' }, { token: 'editor' });
    expect((await q('select impersonated_by from svc_activity where collection = $1 and item = $2', ['posts', String(own.body.data)]))[0].impersonated_by).toBeNull();
  });

  it('refuses callers without impersonate_access, anonymous callers, and impersonation chains: 403', async () => {
    const count = async () => Number((await q("select count(*)::int as n from svc_activity where action like 'impersonation.%'"))[0].n);
    const before = await count();
    expect(await t.req('POST', '/auth/impersonate', { user: editor.user }, { token: 'plain' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await t.req('POST', '/auth/impersonate', { user: editor.user }, { token: null })).toMatchObject({ status: 403, body: FORBIDDEN });
    const token = (await t.req('POST', '/auth/impersonate', { user: plain.user }, { token: 'support' })).body.data.access_token;
    expect(await t.req('POST', '/auth/impersonate', { user: editor.user }, { token })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await count()).toBe(before + 1);
  });

  it('only admins impersonate admins; admins may impersonate anyone', async () => {
    expect(await t.req('POST', '/auth/impersonate', { user: adminId }, { token: 'support' })).toMatchObject({ status: 403, body: FORBIDDEN });
    const res = await t.req('POST', '/auth/impersonate', { user: support.user });
    expect(res.status).toBe(200);
    const me = await t.req('GET', '/auth/me?fields=id', undefined, { token: res.body.data.access_token });
    expect(me.body).toEqual({ data: { id: support.user } });
    // Acting as a non-admin, the admin's own rights are gone.
    expect((await t.req('GET', '/roles', undefined, { token: res.body.data.access_token })).status).toBe(403);
  });

  it('bad input: missing or malformed user -> 400, unknown user -> 403, self -> 400; stop without impersonation -> 400', async () => {
    for (const body of [undefined, {}, { user: 'x' }, { user: support.user }]) {
      const res = await t.req('POST', '/auth/impersonate', body, { token: 'support' });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    expect(await t.req('POST', '/auth/impersonate', { user: '00000000-0000-4000-8000-000000000000' }, { token: 'support' })).toMatchObject({ status: 403, body: FORBIDDEN });
    const stop = await t.req('POST', '/auth/impersonate/stop', undefined, { token: 'support' });
    expect(stop.status).toBe(400);
    expect(stop.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
  });

  it('a forged impersonated_by claim (wrong signature) is INVALID_TOKEN', async () => {
    const token = (await t.req('POST', '/auth/impersonate', { user: plain.user }, { token: 'support' })).body.data.access_token;
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = [h, Buffer.from(JSON.stringify({ ...claims, id: adminId })).toString('base64url'), s].join('.');
    const res = await t.req('GET', '/auth/me', undefined, { token: forged });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_TOKEN');
  });
});
