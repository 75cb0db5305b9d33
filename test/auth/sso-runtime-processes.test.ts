/** A sign-on provider configured at runtime through one server process is used by another: two real server
 * processes on one Postgres database and a real OpenID provider. The second process lists the new provider, signs a
 * user in through it, follows a change of its secret, and stops offering it once deleted; no restart, no shared
 * memory. Processes hear of each other's changes through the shared store, as for every schema change, so this runs
 * in the pass with Postgres and Redis (the embedded PGlite is one process's database). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/app.ts';
import { startOidcIdp, type TestIdp } from '../helpers/oidc-idp.ts';
import { call } from '../split/harness.ts';
import { type FaultServer, notesDatabase, REDIS_URL, SHARED_SKIP, sleep, spawnServer } from '../faults/harness.ts';

const PUBLIC_URL = 'http://app.test';

/** Retries `probe` until it holds: the other process sees a change on its next request after the version bump
 * reaches it (at once through the shared version check; the loop only absorbs scheduling). */
async function eventually(probe: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('not seen in time');
    await sleep(100);
  }
}

function setCookies(res: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const eq = pair.indexOf('=');
    out.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return out;
}

describe.skipIf(Boolean(SHARED_SKIP))(`a provider changed at runtime on one process, on another process${SHARED_SKIP}`, () => {
  let database: TestDatabase;
  let idp: TestIdp;
  let a: FaultServer;
  let b: FaultServer;

  beforeAll(async () => {
    idp = await startOidcIdp({
      clients: [{ client_id: 'studio', client_secret: 'right-secret', redirect_uris: [`${PUBLIC_URL}/auth/login/corp/callback`] }],
      accounts: [{ sub: 'ann', email: 'ann@corp.test', email_verified: true, given_name: 'Ann', family_name: 'Other' }],
    });
    database = await notesDatabase();
    [a, b] = await Promise.all([
      spawnServer({ databaseUrl: database.url!, env: { PUBLIC_URL, REDIS_URL: REDIS_URL! } }),
      spawnServer({ databaseUrl: database.url!, env: { PUBLIC_URL, REDIS_URL: REDIS_URL! } }),
    ]);
  }, 150_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
    await idp?.close();
  });

  const listed = async (server: FaultServer) => ((await call(server.url, 'GET', '/auth', { token: null })).body.data as { name: string }[]).map((p) => p.name);

  /** The redirect flow on `server`: start, sign `sub` in at the IdP, finish; the callback's answer. */
  async function signIn(server: FaultServer, sub: string): Promise<Response> {
    const start = await fetch(`${server.url}/auth/login/corp?redirect=${encodeURIComponent(`${PUBLIC_URL}/admin/`)}`, { redirect: 'manual' });
    expect(start.status, await start.clone().text()).toBe(302);
    const flow = setCookies(start).get('svc_sso_flow');
    expect(flow).toBeTruthy();
    const back = new URL(await idp.signIn(start.headers.get('location')!, sub));
    return fetch(`${server.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { cookie: `svc_sso_flow=${flow}` } });
  }

  it('is listed, signs a user in, follows a changed secret and disappears when deleted, all on the other process', async () => {
    expect(await listed(b)).not.toContain('corp');
    const created = await call(a.url, 'POST', '/system/auth-providers', {
      body: { name: 'corp', value: { driver: 'openid', clientId: 'studio', clientSecret: 'right-secret', issuerUrl: idp.issuer, label: 'Corp', allowPublicRegistration: true } },
    });
    expect(created.status, created.text).toBe(201);
    await eventually(async () => (await listed(b)).includes('corp'));

    // Signed in on B through the provider A created: the session cookie works on B's API.
    const done = await signIn(b, 'ann');
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(`${PUBLIC_URL}/admin/`);
    const session = setCookies(done).get('svc_session_token');
    expect(session, done.headers.getSetCookie().join('\n')).toBeTruthy();
    const me = await fetch(`${b.url}/users/me`, { headers: { cookie: `svc_session_token=${session}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).data).toMatchObject({ email: 'ann@corp.test', provider: 'corp', external_identifier: 'ann' });

    // A's change of the secret reaches B: the IdP now refuses B's token request.
    const id = created.body.data.id;
    const patched = await call(a.url, 'PATCH', `/system/auth-providers/${id}`, { body: { value: { clientSecret: 'wrong-secret' } } });
    expect(patched.status, patched.text).toBe(200);
    await eventually(async () => {
      const res = await signIn(b, 'ann');
      return new URL(res.headers.get('location')!).searchParams.get('reason') === 'INVALID_PROVIDER';
    });
    // ... and back.
    expect((await call(a.url, 'PATCH', `/system/auth-providers/${id}`, { body: { value: { clientSecret: 'right-secret' } } })).status).toBe(200);
    await eventually(async () => new URL((await signIn(b, 'ann')).headers.get('location')!).searchParams.get('reason') === null);

    expect((await call(a.url, 'DELETE', `/system/auth-providers/${id}`)).status).toBe(204);
    await eventually(async () => !(await listed(b)).includes('corp'));
    expect((await fetch(`${b.url}/auth/login/corp`, { redirect: 'manual' })).status).toBe(404);
    expect(a.proc.exitCode, a.output()).toBeNull();
    expect(b.proc.exitCode, b.output()).toBeNull();
  }, 120_000);
});
