/** POST /auth/login/{provider} for an LDAP provider configured from the environment (AUTH_PROVIDERS=corp,
 * AUTH_CORP_*), through the real HTTP app against a real OpenLDAP server (test/helpers/slapd.ts). */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Attribute, Change, Client } from 'ldapts';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { slapdSkipReason, startSlapd, type TestSlapd } from '../helpers/slapd.ts';

const SKIP = slapdSkipReason();

let ldap: TestSlapd;
let t: TestApp;
const roles = { editors: randomUUID(), admins: randomUUID(), fallback: randomUUID() };

function corpEnv(over: Record<string, string> = {}): Record<string, string> {
  return {
    AUTH_PROVIDERS: 'corp',
    AUTH_CORP_DRIVER: 'ldap',
    AUTH_CORP_CLIENT_URL: ldap.url,
    AUTH_CORP_BIND_DN: ldap.bindDn,
    AUTH_CORP_BIND_PASSWORD: ldap.bindPassword,
    AUTH_CORP_USER_DN: ldap.peopleDn,
    AUTH_CORP_USER_ATTRIBUTE: 'uid',
    AUTH_CORP_GROUP_DN: ldap.groupsDn,
    AUTH_CORP_ROLE_MAPPING: JSON.stringify({ editors: roles.editors, admins: roles.admins }),
    AUTH_CORP_ALLOW_PUBLIC_REGISTRATION: 'true',
    AUTH_CORP_DEFAULT_ROLE_ID: roles.fallback,
    AUTH_CORP_SYNC_USER_INFO: 'true',
    ...over,
  };
}

async function addRoles(app: TestApp) {
  for (const [name, id] of Object.entries(roles)) {
    await run(app.services.database.db, 'insert into svc_roles (id, name, app_access) values ($1, $2, true)', [id, `ldap-${name}`]);
  }
}

/** givenName changed by the directory's administrator (the rootdn). */
async function renameInDirectory(dn: string, givenName: string) {
  const c = new Client({ url: ldap.url, timeout: 5000 });
  try {
    await c.bind(ldap.rootDn, ldap.rootPassword);
    await c.modify(dn, new Change({ operation: 'replace', modification: new Attribute({ type: 'givenName', values: [givenName] }) }));
  } finally {
    await c.unbind();
  }
}

const signIn = (app: TestApp, body: unknown) => app.req('POST', '/auth/login/corp', body, { token: null });
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

async function userByIdentifier(app: TestApp, dn: string) {
  return run<{ id: string; email: string; provider: string; external_identifier: string; role: string; first_name: string; last_name: string; auth_data: unknown; password: string | null }>(
    app.services.database.db,
    'select id, email, provider, external_identifier, role, first_name, last_name, auth_data, password from svc_users where external_identifier = $1', [dn]);
}

describe.skipIf(!!SKIP)(`POST /auth/login/{provider} with an LDAP directory${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  beforeAll(async () => {
    ldap = await startSlapd();
    t = await createTestApp({ env: corpEnv() });
    await addRoles(t);
  });
  afterAll(async () => {
    await t?.close();
    await ldap?.stop();
  });

  it('first sign-in creates the user: provider corp, external_identifier the DN, role from the group mapping; the token works on /users/me', async () => {
    const { alice } = ldap.users;
    const res = await signIn(t, { identifier: alice.uid, password: alice.password });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['access_token', 'expires', 'refresh_token']);
    const rows = await userByIdentifier(t, alice.dn);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      provider: 'corp', external_identifier: alice.dn, role: roles.editors, email: alice.mail, first_name: 'Alice', last_name: 'Liddell', password: null,
    });
    expect(JSON.stringify(rows[0].auth_data)).not.toContain(alice.password);

    const me = await t.req('GET', '/users/me', undefined, { token: res.body.data.access_token });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(rows[0].id);
  });

  it('a second sign-in matches the same user (no second row) and syncs a name changed in the directory', async () => {
    const { alice } = ldap.users;
    const [before] = await userByIdentifier(t, alice.dn);
    await renameInDirectory(alice.dn, 'Alicia');
    const res = await signIn(t, { identifier: alice.uid, password: alice.password });
    expect(res.status).toBe(200);
    const rows = await userByIdentifier(t, alice.dn);
    expect(rows.map((r) => r.id)).toEqual([before.id]);
    expect(rows[0].first_name).toBe('Alicia');
    const me = await t.req('GET', '/users/me', undefined, { token: res.body.data.access_token });
    expect(me.body.data.id).toBe(before.id);
  });

  it('bob in admins gets the admins role', async () => {
    const { bob } = ldap.users;
    expect((await signIn(t, { identifier: bob.uid, password: bob.password })).status).toBe(200);
    expect((await userByIdentifier(t, bob.dn))[0].role).toBe(roles.admins);
  });

  it.each([
    ['wrong password', 'alice', 'not-her-password'],
    ['unknown user', 'nobody', 'some-password'],
    ['filter injection', '*', 'some-password'],
  ])('%s: 401 INVALID_CREDENTIALS', async (_case, identifier, password) => {
    const res = await signIn(t, { identifier, password });
    expect({ status: res.status, code: code(res) }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS' });
  });

  it('a locked account (ppolicy pwdAccountLockedTime): USER_SUSPENDED even with the right password, as a suspended local login answers', async () => {
    const { carol } = ldap.users;
    const res = await signIn(t, { identifier: carol.uid, password: carol.password });
    expect({ status: res.status, code: code(res) }).toEqual({ status: 403, code: 'USER_SUSPENDED' });
    expect(await userByIdentifier(t, carol.dn)).toEqual([]);
  });

  it('public registration off: an unknown directory user is refused and no user is created', async () => {
    const closed = await createTestApp({ env: corpEnv({ AUTH_CORP_ALLOW_PUBLIC_REGISTRATION: 'false' }) });
    try {
      await addRoles(closed);
      const { bob } = ldap.users;
      const res = await signIn(closed, { identifier: bob.uid, password: bob.password });
      expect({ status: res.status, code: code(res) }).toEqual({ status: 401, code: 'INVALID_CREDENTIALS' });
      expect(await userByIdentifier(closed, bob.dn)).toEqual([]);
    } finally {
      await closed.close();
    }
  });

  it('ldaps:// with the CA given as PEM text in AUTH_CORP_TLS_CA signs in; without it the directory is unavailable (503)', async () => {
    const secure = await createTestApp({ env: corpEnv({ AUTH_CORP_CLIENT_URL: ldap.ldapsUrl, AUTH_CORP_TLS_CA: ldap.caPem }) });
    const unverified = await createTestApp({ env: corpEnv({ AUTH_CORP_CLIENT_URL: ldap.ldapsUrl }) });
    try {
      await addRoles(secure);
      const { bob } = ldap.users;
      const ok = await signIn(secure, { identifier: bob.uid, password: bob.password });
      expect(ok.status).toBe(200);
      expect((await userByIdentifier(secure, bob.dn))[0].role).toBe(roles.admins);
      const refused = await signIn(unverified, { identifier: bob.uid, password: bob.password });
      expect({ status: refused.status, code: code(refused) }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(JSON.stringify(refused.body)).not.toContain(ldap.bindPassword);
    } finally {
      await secure.close();
      await unverified.close();
    }
  });
});
