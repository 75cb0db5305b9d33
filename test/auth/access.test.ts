/** Accountability resolution (core/access/resolve.ts): role chain, policies of roles and of the user,
 * admin/app flags, ip_access, and the per-schema-version cache. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { authenticate, type RequestMeta } from '../../core/auth/authenticate.ts';
import { signAccessToken } from '../../core/auth/tokens.ts';
import { parseNetworks } from '../../core/access/resolve.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN, testEnv } from '../helpers/template.ts';

let t: TestApp;
const meta = (ip: string | null = '203.0.113.9'): RequestMeta => ({ ip, userAgent: 'ua', origin: 'https://o.example' });
const sql = (text: string, params: unknown[] = []) => run(t.services.database.db, text, params);

async function role(fields: { parent?: string | null; admin_access?: boolean; app_access?: boolean; tech_access?: boolean } = {}) {
  const id = randomUUID();
  await sql(`insert into svc_roles (id, name, parent, admin_access, app_access, tech_access) values ($1, $2, $3, $4, $5, $6)`,
    [id, `r-${id.slice(0, 6)}`, fields.parent ?? null, fields.admin_access ?? false, fields.app_access ?? false, fields.tech_access ?? false]);
  return id;
}
async function policy(fields: { admin_access?: boolean; app_access?: boolean; ip_access?: unknown } = {}) {
  const id = randomUUID();
  await sql('insert into svc_policies (id, name, admin_access, app_access, ip_access) values ($1, $2, $3, $4, $5)',
    [id, `p-${id.slice(0, 6)}`, fields.admin_access ?? false, fields.app_access ?? false, fields.ip_access === undefined ? null : JSON.stringify(fields.ip_access)]);
  return id;
}
async function attach(policyId: string, to: { role?: string; user?: string }, sort = 1) {
  await sql('insert into svc_access (id, role, "user", policy, sort) values ($1, $2, $3, $4, $5)', [randomUUID(), to.role ?? null, to.user ?? null, policyId, sort]);
}
async function user(roleId: string | null) {
  const id = randomUUID();
  await sql("insert into svc_users (id, email, role, status) values ($1, $2, $3, 'active')", [id, `${id}@example.com`, roleId]);
  return id;
}
async function accountabilityOf(userId: string, ip?: string | null) {
  await t.services.schema.invalidate();
  const token = await signAccessToken({ id: userId, role: null, app_access: false, admin_access: false }, testEnv().SECRET, 60_000);
  return authenticate(t.services, token, meta(ip));
}

beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

describe('accountability', () => {
  it('anonymous requests act as the Public role with its policy', async () => {
    const [{ public_role }] = await sql('select public_role from svc_settings where id = 1') as { public_role: string }[];
    const [{ policy: publicPolicy }] = await sql('select policy from svc_access where role = $1', [public_role]) as { policy: string }[];
    const acc = await authenticate(t.services, null, meta());
    expect(acc).toEqual({
      user: null, role: public_role, roles: [public_role], policies: [publicPolicy], admin: false, app: false, serviceAccount: false,
      ip: '203.0.113.9', userAgent: 'ua', origin: 'https://o.example',
    });
  });

  it('the bootstrap admin (static token) is admin with app access', async () => {
    const acc = await authenticate(t.services, ADMIN_TOKEN, meta());
    expect(acc).toMatchObject({ admin: true, app: true });
    expect(acc.user).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a role with a parent gets both roles and both roles\u2019 policies, plus the user\u2019s own policies', async () => {
    const parent = await role();
    const child = await role({ parent });
    const pParent = await policy();
    const pChild = await policy();
    const pUser = await policy();
    await attach(pParent, { role: parent }, 2);
    await attach(pChild, { role: child }, 1);
    const u = await user(child);
    await attach(pUser, { user: u }, 3);
    const acc = await accountabilityOf(u);
    expect(acc.role).toBe(child);
    expect(acc.roles).toEqual([child, parent]);
    expect(acc.policies).toEqual([pChild, pParent, pUser]);
    expect(acc).toMatchObject({ admin: false, app: false, user: u });
  });

  it('admin_access on any policy (even an ancestor role\u2019s) makes admin and app true', async () => {
    const grand = await role();
    const parent = await role({ parent: grand });
    const child = await role({ parent });
    await attach(await policy({ admin_access: true }), { role: grand });
    const acc = await accountabilityOf(await user(child));
    expect(acc.roles).toEqual([child, parent, grand]);
    expect(acc).toMatchObject({ admin: true, app: true });
  });

  it('app_access on a policy gives app only; role flags count too (tech_access implies admin)', async () => {
    const r = await role();
    await attach(await policy({ app_access: true }), { role: r });
    expect(await accountabilityOf(await user(r))).toMatchObject({ admin: false, app: true });
    expect(await accountabilityOf(await user(await role({ tech_access: true })))).toMatchObject({ admin: true, app: true });
    expect(await accountabilityOf(await user(await role({ app_access: true })))).toMatchObject({ admin: false, app: true });
  });

  it('a user without a role gets only its own policies', async () => {
    const u = await user(null);
    const p = await policy({ admin_access: true });
    await attach(p, { user: u });
    expect(await accountabilityOf(u)).toMatchObject({ role: null, roles: [], policies: [p], admin: true });
  });

  it('terminates on a cycle in role parents', async () => {
    const a = await role();
    const b = await role({ parent: a });
    await sql('update svc_roles set parent = $1 where id = $2', [b, a]);
    const acc = await accountabilityOf(await user(a));
    expect(acc.roles).toEqual([a, b]);
  });

  it('counts a policy limited by ip_access only from inside its networks', async () => {
    const r = await role();
    const limited = await policy({ admin_access: true, ip_access: ['10.0.0.0/8', '2001:db8::/32'] });
    const open = await policy();
    await attach(limited, { role: r }, 1);
    await attach(open, { role: r }, 2);
    const u = await user(r);
    expect(await accountabilityOf(u, '10.1.2.3')).toMatchObject({ policies: [limited, open], admin: true });
    expect(await accountabilityOf(u, '::ffff:10.1.2.3')).toMatchObject({ policies: [limited, open], admin: true });
    expect(await accountabilityOf(u, '2001:db8::1')).toMatchObject({ admin: true });
    expect(await accountabilityOf(u, '192.168.1.1')).toMatchObject({ policies: [open], admin: false });
    expect(await accountabilityOf(u, null)).toMatchObject({ policies: [open], admin: false });
  });

  it('parses ip_access leniently but never opens on garbage', () => {
    expect(parseNetworks(null)).toBeNull();
    expect(parseNetworks([])).toBeNull();
    const block = parseNetworks('127.0.0.1, 10.0.0.0/8, not-an-ip, 10.0.0.0/99')!;
    expect(block.check('127.0.0.1', 'ipv4')).toBe(true);
    expect(block.check('10.9.9.9', 'ipv4')).toBe(true);
    expect(block.check('11.0.0.1', 'ipv4')).toBe(false);
    expect(parseNetworks(['garbage'])!.check('1.2.3.4', 'ipv4')).toBe(false);
  });

  it('caches per schema version: a change is seen after the version is bumped', async () => {
    const r = await role();
    const u = await user(r);
    expect(await accountabilityOf(u)).toMatchObject({ admin: false });
    const { version } = await t.services.schema.get();
    await attach(await policy({ admin_access: true }), { role: r });
    // Same version: still the cached answer (no query on the hot path).
    const token = await signAccessToken({ id: u, role: r, app_access: false, admin_access: false }, testEnv().SECRET, 60_000);
    expect((await t.services.schema.get()).version).toBe(version);
    expect(await authenticate(t.services, token, meta())).toMatchObject({ admin: false });
    await t.services.schema.invalidate();
    expect(await authenticate(t.services, token, meta())).toMatchObject({ admin: true });
  });
});
