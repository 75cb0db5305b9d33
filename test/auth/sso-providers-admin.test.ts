/** /system/auth-providers (admin only): runtime sign-on providers as svc_extension_settings records, secrets
 * sealed at rest and masked in answers, validation, reload across processes, and who may call it. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { createAppUser, secondInstance } from '../schema/helpers.ts';

let t: TestApp & { database: Awaited<ReturnType<typeof createTestApp>>['database'] };
let appUser: string;
let noAccess: string;
let shareToken: string;

const oidcValue = (extra: Record<string, unknown> = {}) => ({
  driver: 'openid', clientId: 'cid', clientSecret: 'top-secret-value', issuerUrl: 'https://idp.example', label: 'Corp', ...extra,
});

beforeAll(async () => {
  t = await createTestApp({
    env: {
      AUTH_PROVIDERS: 'envidp', AUTH_ENVIDP_DRIVER: 'openid', AUTH_ENVIDP_CLIENT_ID: 'x', AUTH_ENVIDP_CLIENT_SECRET: 'y',
      AUTH_ENVIDP_ISSUER_URL: 'https://env.example',
    },
  });
  appUser = await createAppUser(t);
  noAccess = await createAppUser(t, { app: false });
  const { role } = await createPrincipal(t.services, { token: 'sso-share-role', permissions: [], appAccess: true });
  expect((await t.req('POST', '/collections', { collection: 'sso_posts', schema: {} })).status).toBe(200);
  const share = randomUUID();
  await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'sso_posts', '1', $2)", [share, role]);
  const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
  shareToken = auth.body.data.access_token;
}, 60_000);
afterAll(() => t?.close());

describe('/system/auth-providers', () => {
  it('creates, masks, keeps a masked secret, encrypts at rest, updates and deletes', async () => {
    const created = await t.req('POST', '/system/auth-providers', { name: 'corp', value: oidcValue() });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    expect(id).toEqual(expect.any(Number));

    const [stored] = await run<{ value: unknown }>(t.services.database.db, 'select value from svc_extension_settings where id = $1', [id]);
    const text = typeof stored.value === 'string' ? stored.value : JSON.stringify(stored.value);
    expect(text).not.toContain('top-secret-value');
    expect(text).toContain('enc:v1:');

    const one = await t.req('GET', '/system/auth-providers/corp');
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id, name: 'corp', extension_key: 'system_auth_provider' });
    expect(one.body.data.value).toMatchObject({ driver: 'openid', clientId: 'cid', clientSecret: '********', issuerUrl: 'https://idp.example' });
    const list = await t.req('GET', '/system/auth-providers');
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['corp']);
    expect(JSON.stringify(list.body)).not.toContain('top-secret-value');
    // The generic read of the records masks the secret as this API does (not the sealed text).
    const settings = await t.req('GET', '/extension-settings?extension_key=system_auth_provider');
    expect(settings.status).toBe(200);
    expect(settings.body.data).toEqual([expect.objectContaining({ id, name: 'corp', value: expect.objectContaining({ clientSecret: '********', clientId: 'cid' }) })]);
    expect(JSON.stringify(settings.body)).not.toContain('enc:v1:');

    // Listed publicly once created (the registry reloads with the schema version).
    expect((await t.req('GET', '/auth', undefined, { token: null })).body.data).toContainEqual({ name: 'corp', driver: 'openid', label: 'Corp', icon: null });

    expect((await t.req('PATCH', `/system/auth-providers/${id}`, { value: { clientSecret: '********', label: 'Corporate' } })).status).toBe(200);
    const loaded = (await t.services.sso.providers((await t.services.schema.get()).version)).get('corp');
    expect(loaded).toMatchObject({ clientSecret: 'top-secret-value', label: 'Corporate', source: 'settings' });
    expect((await t.req('PATCH', `/system/auth-providers/${id}`, { value: { clientSecret: 'rotated' } })).status).toBe(200);
    expect((await t.services.sso.providers((await t.services.schema.get()).version)).get('corp')).toMatchObject({ clientSecret: 'rotated' });

    expect((await t.req('DELETE', `/system/auth-providers/${id}`)).status).toBe(204);
    expect((await t.req('GET', '/system/auth-providers/corp')).status).toBe(404);
    expect((await t.req('DELETE', `/system/auth-providers/${id}`)).status).toBe(404);
    expect((await t.req('GET', '/auth', undefined, { token: null })).body.data.map((p: { name: string }) => p.name)).toEqual(['envidp']);
  });

  it.each([
    ['no name', { value: oidcValue() }, /"name" is required/],
    ['a bad name', { name: 'Bad Name', value: oidcValue() }, /"name"/],
    ['the name default', { name: 'default', value: oidcValue() }, /default/],
    ['an environment provider\'s name', { name: 'envidp', value: oidcValue() }, /environment/],
    ['no value', { name: 'p1' }, /"value"/],
    ['a bad driver', { name: 'p1', value: oidcValue({ driver: 'cas' }) }, /value.driver/],
    ['no clientId', { name: 'p1', value: oidcValue({ clientId: undefined }) }, /value.clientId" is required/],
    ['a bad issuer URL', { name: 'p1', value: oidcValue({ issuerUrl: 'ftp://x' }) }, /value.issuerUrl/],
    ['a bad role mapping', { name: 'p1', value: oidcValue({ roleMapping: { g: 'nope' } }) }, /value.roleMapping/],
    ['an unknown setting', { name: 'p1', value: oidcValue({ bogus: 1 }) }, /value.bogus/],
    ['a non-boolean flag', { name: 'p1', value: oidcValue({ allowPublicRegistration: 'maybe' }) }, /value.allowPublicRegistration/],
    ['an unknown field', { name: 'p1', value: oidcValue(), extra: 1 }, /Unknown field/],
    ['a mask with nothing stored', { name: 'p1', value: oidcValue({ clientSecret: '********' }) }, /value.clientSecret" has no stored value/],
  ])('POST with %s is 400', async (_label, body, message) => {
    const res = await t.req('POST', '/system/auth-providers', body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect(res.body.errors[0].message).toMatch(message);
  });

  it('a duplicate name is 409; PATCH of an unknown id 404 and of name 400', async () => {
    expect((await t.req('POST', '/system/auth-providers', { name: 'dup', value: oidcValue() })).status).toBe(201);
    expect((await t.req('POST', '/system/auth-providers', { name: 'dup', value: oidcValue() })).status).toBe(409);
    expect((await t.req('PATCH', '/system/auth-providers/999999', { value: { label: 'x' } })).status).toBe(404);
    const { body } = await t.req('GET', '/system/auth-providers/dup');
    expect((await t.req('PATCH', `/system/auth-providers/${body.data.id}`, { name: 'x' })).status).toBe(400);
    expect((await t.req('PATCH', `/system/auth-providers/${body.data.id}`, { value: { issuerUrl: 'nope' } })).status).toBe(400);
    expect((await t.req('DELETE', `/system/auth-providers/${body.data.id}`)).status).toBe(204);
  });

  it('is admin only: app user 403, no-access user 403, public 403, share token 401', async () => {
    const cases: Array<[string, string | null, number[]]> = [
      ['app user', appUser, [403]],
      ['no-access user', noAccess, [403]],
      ['public', null, [403]],
      ['share token', shareToken, [401, 403]],
    ];
    for (const [label, token, statuses] of cases) {
      for (const [method, path, body] of [
        ['GET', '/system/auth-providers', undefined],
        ['GET', '/system/auth-providers/x', undefined],
        ['POST', '/system/auth-providers', { name: 'p9', value: oidcValue() }],
        ['PATCH', '/system/auth-providers/1', { value: {} }],
        ['DELETE', '/system/auth-providers/1', undefined],
      ] as const) {
        const res = await t.req(method, path, body, { token });
        expect(statuses, `${label} ${method} ${path} -> ${res.status}`).toContain(res.status);
      }
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('a provider created on one process is seen by another on the same database (Postgres only: PGlite is one process\'s embedded database)', async () => {
    const b = await secondInstance(t);
    try {
      expect((await b.req('GET', '/auth')).body.data.map((p: { name: string }) => p.name)).not.toContain('shared');
      expect((await t.req('POST', '/system/auth-providers', { name: 'shared', value: oidcValue() })).status).toBe(201);
      expect((await b.req('GET', '/auth')).body.data.map((p: { name: string }) => p.name)).toContain('shared');
      const { body } = await t.req('GET', '/system/auth-providers/shared');
      expect((await t.req('DELETE', `/system/auth-providers/${body.data.id}`)).status).toBe(204);
      expect((await b.req('GET', '/auth')).body.data.map((p: { name: string }) => p.name)).not.toContain('shared');
    } finally {
      await b.close();
    }
  });
});
