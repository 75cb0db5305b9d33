/** Access token verification and the credentials a request may carry. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { run } from '../../core/db/database.ts';
import { hashPassword } from '../../core/auth/passwords.ts';
import { signAccessToken, verifyAccessToken, isServiceJwt } from '../../core/auth/tokens.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_EMAIL, ADMIN_TOKEN, testEnv } from '../helpers/template.ts';

const SECRET = testEnv().SECRET;
let t: TestApp;
let adminId: string;
let adminRole: string;

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const me = (token: string | null, headers: Record<string, string> = {}) => t.req('GET', '/auth/me', undefined, { token, headers });
const claims = () => ({ id: adminId, role: adminRole, app_access: true, admin_access: true });

beforeAll(async () => {
  t = await createTestApp();
  [{ id: adminId, role: adminRole }] = await run<{ id: string; role: string }>(t.services.database.db,
    'select id, role from svc_users where email = $1', [ADMIN_EMAIL]);
});
afterAll(async () => { await t.close(); });

describe('access tokens (core/auth/tokens.ts)', () => {
  it('round-trips a signed token', async () => {
    const token = await signAccessToken(claims(), SECRET, 60_000);
    expect(isServiceJwt(token)).toBe(true);
    expect(await verifyAccessToken(token, SECRET)).toEqual(claims());
  });

  it('rejects an expired token with TOKEN_EXPIRED', async () => {
    const token = await signAccessToken(claims(), SECRET, -10_000);
    await expect(verifyAccessToken(token, SECRET)).rejects.toMatchObject({ status: 401, code: 'TOKEN_EXPIRED' });
  });

  it('rejects an expired token with a bad signature as INVALID_TOKEN (signature first)', async () => {
    const token = await signAccessToken(claims(), 'another-secret-another-secret-xx', -10_000);
    await expect(verifyAccessToken(token, SECRET)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('treats a JWT of another issuer as no JWT of ours', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).setIssuer('directus').setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    expect(isServiceJwt(token)).toBe(false);
    await expect(verifyAccessToken(token, SECRET)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('rejects a token without an expiry', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).setIssuer('svc')
      .sign(new TextEncoder().encode(SECRET));
    await expect(verifyAccessToken(token, SECRET)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('answers a token verified before from memory, and still expires it', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).setIssuer('svc')
      .setExpirationTime(Math.floor(Date.now() / 1000) + 2).sign(new TextEncoder().encode(SECRET));
    expect(await verifyAccessToken(token, SECRET)).toEqual(claims());
    expect(await verifyAccessToken(token, SECRET)).toEqual(claims());
    // The same token is not valid under another secret, cached or not.
    await expect(verifyAccessToken(token, 'another-secret-another-secret-xx')).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await new Promise((r) => setTimeout(r, 2100));
    await expect(verifyAccessToken(token, SECRET)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
  });

  it('rejects malformed share claims (no scope, an id beside the share, a non-string share)', async () => {
    const sign = (c: Record<string, unknown>) => new SignJWT(c).setProtectedHeader({ alg: 'HS256' }).setIssuer('svc')
      .setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    const scope = { collection: 'posts', item: '1' };
    for (const c of [
      { share: randomUUID(), role: null },
      { share: randomUUID(), share_scope: { collection: 'posts' }, role: null },
      { share: randomUUID(), share_scope: scope, id: adminId, role: null },
      { share: 42, share_scope: scope, role: null },
    ]) {
      await expect(verifyAccessToken(await sign(c), SECRET)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    }
    const ok = await verifyAccessToken(await sign({ share: 'abc', share_scope: scope, role: null, admin_access: true, app_access: true }), SECRET);
    // A share never gets admin or app access from its claims.
    expect(ok).toEqual({ id: null, role: null, app_access: false, admin_access: false, share: 'abc', share_scope: scope });
  });

  it('rejects payloads without a string id', async () => {
    const token = await new SignJWT({ id: 42 }).setProtectedHeader({ alg: 'HS256' }).setIssuer('svc').setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    await expect(verifyAccessToken(token, SECRET)).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  });
});

describe('credentials over HTTP', () => {
  async function forged(): Promise<Record<string, string>> {
    const good = await signAccessToken(claims(), SECRET, 60_000);
    const [header, payload, signature] = good.split('.');
    const exp = Math.floor(Date.now() / 1000) + 3600;
    return {
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims(), iss: 'svc', exp })}.`,
      'alg none with the real signature': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.${signature}`,
      'wrong secret': await signAccessToken(claims(), 'wrong-secret-wrong-secret-wrong!!', 60_000),
      'truncated signature': `${header}.${payload}.${signature.slice(0, -4)}`,
      'truncated to two segments': `${header}.${payload}`,
      'tampered payload': `${header}.${b64({ ...claims(), id: randomUUID(), iss: 'svc', exp })}.${signature}`,
      'HS512 with the right secret': await new SignJWT({ ...claims() }).setProtectedHeader({ alg: 'HS512' }).setIssuer('svc')
        .setExpirationTime('1h').sign(new TextEncoder().encode(SECRET)),
      'wrong issuer': await new SignJWT({ ...claims() }).setProtectedHeader({ alg: 'HS256' }).setIssuer('other')
        .setExpirationTime('1h').sign(new TextEncoder().encode(SECRET)),
      'garbage': 'not-a-token',
    };
  }

  it('accepts a signed access token in the Authorization header and in ?access_token=', async () => {
    const token = await signAccessToken(claims(), SECRET, 60_000);
    expect((await me(token)).body.data.id).toBe(adminId);
    const viaQuery = await t.req('GET', `/auth/me?access_token=${token}`, undefined, { token: null });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body.data.id).toBe(adminId);
  });

  it('accepts the static token of an active user', async () => {
    const res = await me(ADMIN_TOKEN);
    expect(res.status).toBe(200);
    expect(res.body.data.email).toBe(ADMIN_EMAIL);
  });

  it('answers an expired token with 401 TOKEN_EXPIRED', async () => {
    const res = await me(await signAccessToken(claims(), SECRET, -10_000));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ errors: [{ message: 'Token expired.', extensions: { code: 'TOKEN_EXPIRED' } }] });
  });

  it('answers every forged, truncated or foreign token with 401 INVALID_TOKEN', async () => {
    for (const [name, token] of Object.entries(await forged())) {
      const res = await me(token);
      expect({ name, status: res.status, code: code(res) }).toEqual({ name, status: 401, code: 'INVALID_TOKEN' });
    }
  });

  it('answers a Bearer header without exactly one token with INVALID_TOKEN, and ignores other schemes', async () => {
    const empty = await me(null, { authorization: 'Bearer' });
    expect(code(empty)).toBe('INVALID_TOKEN');
    const two = await me(null, { authorization: 'Bearer a b' });
    expect(code(two)).toBe('INVALID_TOKEN');
    const basic = await me(null, { authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
    expect(code(basic)).toBe('INVALID_CREDENTIALS');
  });

  it('prefers the Authorization header over ?access_token=', async () => {
    const res = await t.req('GET', '/auth/me?access_token=bogus', undefined, { token: ADMIN_TOKEN });
    expect(res.status).toBe(200);
  });

  describe('tokens of users that are gone, suspended or changed', () => {
    async function addUser(status = 'active') {
      const id = randomUUID();
      const token = `static-${id}`;
      await run(t.services.database.db, `insert into svc_users (id, email, password, role, status, token)
        values ($1, $2, $3, $4, $5, $6)`, [id, `${id}@example.com`, await hashPassword('pw-pw-pw-pw'), adminRole, status, token]);
      return { id, token, jwt: await signAccessToken({ id, role: adminRole, app_access: true, admin_access: true }, SECRET, 60_000) };
    }
    // What the users service does after such a change: bump the schema version, dropping the caches.
    const setStatus = async (id: string, status: string) => {
      await run(t.services.database.db, 'update svc_users set status = $1 where id = $2', [status, id]);
      await t.services.schema.invalidate();
    };

    it('rejects JWT and static token once the user is suspended, accepts them again when reactivated', async () => {
      const u = await addUser();
      expect((await me(u.jwt)).status).toBe(200);
      expect((await me(u.token)).status).toBe(200);
      await setStatus(u.id, 'suspended');
      expect(code(await me(u.jwt))).toBe('INVALID_TOKEN');
      expect(code(await me(u.token))).toBe('INVALID_TOKEN');
      await setStatus(u.id, 'active');
      expect((await me(u.jwt)).status).toBe(200);
      expect((await me(u.token)).status).toBe(200);
    });

    it('rejects the static token of a user that is not active', async () => {
      const u = await addUser('invited');
      expect(code(await me(u.token))).toBe('INVALID_TOKEN');
    });

    it('rejects a JWT of a deleted user', async () => {
      const u = await addUser();
      expect((await me(u.jwt)).status).toBe(200);
      await run(t.services.database.db, 'delete from svc_users where id = $1', [u.id]);
      await t.services.schema.invalidate();
      const res = await me(u.jwt);
      expect(res.status).toBe(401);
      expect(code(res)).toBe('INVALID_TOKEN');
    });

    it('rejects a validly signed JWT whose id is no uuid', async () => {
      const token = await signAccessToken({ id: 'not-a-uuid', role: null, app_access: false, admin_access: false }, SECRET, 60_000);
      expect(code(await me(token))).toBe('INVALID_TOKEN');
    });

    it("uses the user's current role, not the one the token claims", async () => {
      const u = await addUser();
      const [{ public_role }] = await run<{ public_role: string }>(t.services.database.db, 'select public_role from svc_settings');
      await run(t.services.database.db, 'update svc_users set role = $1 where id = $2', [public_role, u.id]);
      await t.services.schema.invalidate();
      const { authenticate } = await import('../../core/auth/authenticate.ts');
      const acc = await authenticate(t.services, u.jwt, { ip: null, userAgent: null, origin: null });
      expect(acc).toMatchObject({ user: u.id, role: public_role, admin: false });
    });
  });
});

describe('GET /auth/me', () => {
  it('returns the current user without secrets', async () => {
    await run(t.services.database.db, "update svc_users set tfa_secret = 'JBSWY3DPEHPK3PXP' where id = $1", [adminId]);
    const res = await me(ADMIN_TOKEN);
    await run(t.services.database.db, 'update svc_users set tfa_secret = null where id = $1', [adminId]);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: adminId, email: ADMIN_EMAIL, first_name: 'Admin', last_name: 'User', role: adminRole, status: 'active',
      provider: 'default', tfa_enabled: false, require_password_change: false,
    });
    for (const key of ['language', 'theme', 'appearance', 'avatar', 'description', 'last_access']) expect(res.body.data).toHaveProperty(key);
    for (const secret of ['password', 'token', 'tfa_secret', 'auth_data']) expect(res.body.data).not.toHaveProperty(secret);
    expect(JSON.stringify(res.body)).not.toContain(ADMIN_TOKEN);
    expect(JSON.stringify(res.body)).not.toContain('$argon2');
  });

  it('honours ?fields= for its own fields', async () => {
    const res = await t.req('GET', '/auth/me?fields=id,email');
    expect(res.body.data).toEqual({ id: adminId, email: ADMIN_EMAIL });
    const arr = await t.req('GET', '/auth/me?fields[]=id&fields[]=status');
    expect(arr.body.data).toEqual({ id: adminId, status: 'active' });
    expect(Object.keys((await t.req('GET', '/auth/me?fields=*')).body.data)).toContain('last_access');
  });

  it('refuses secret or unknown fields with 403 and relational ones with 400', async () => {
    for (const f of ['password', 'token', 'tfa_secret', 'nope']) {
      const res = await t.req('GET', `/auth/me?fields=id,${f}`);
      expect({ f, status: res.status, code: code(res) }).toEqual({ f, status: 403, code: 'FORBIDDEN' });
    }
    const rel = await t.req('GET', '/auth/me?fields=role.name');
    expect(rel.status).toBe(400);
    expect(code(rel)).toBe('INVALID_QUERY');
  });

  it('answers anonymous callers as Directus answers /users/me: 401 INVALID_CREDENTIALS', async () => {
    const res = await me(null);
    expect(res.status).toBe(401);
    expect(code(res)).toBe('INVALID_CREDENTIALS');
  });
});
