/** Changes to users are recorded in activity and revisions like any collection's, but revisions never hold
 * the password hash, the static token or the two-factor secret. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => { t = await createTestApp(); });
afterAll(async () => { await t.close(); });

it('records user creation and updates, with secrets left out of revisions', async () => {
  const created = await t.req('POST', '/users', { email: 'audited@example.com', password: 'first-password-1', token: 'audited-static-token' });
  expect(created.status).toBe(200);
  const id = created.body.data as string;
  expect((await t.req('PATCH', `/users/${id}`, { password: 'second-password-2', first_name: 'Audit' })).status).toBe(200);

  const activity = await run<{ action: string }>(t.services.database.db,
    "select action from svc_activity where collection = 'svc_users' and item = $1 order by id", [id]);
  expect(activity.map((a) => a.action)).toEqual(['create', 'update']);

  const revisions = await run<{ data: Record<string, unknown>; delta: Record<string, unknown> }>(t.services.database.db,
    "select data, delta from svc_revisions where collection = 'svc_users' and item = $1 order by id", [id]);
  expect(revisions).toHaveLength(2);
  for (const r of revisions) {
    expect(r.data.email).toBe('audited@example.com');
    expect(r.data).not.toHaveProperty('password');
    expect(r.data).not.toHaveProperty('token');
    expect(r.data).not.toHaveProperty('tfa_secret');
  }
  expect(revisions[1].delta).toMatchObject({ password: '**********', first_name: 'Audit' });
  const text = JSON.stringify(revisions);
  expect(text).not.toContain('audited-static-token');
  expect(text).not.toContain('$argon2');
});

it('records the revocation of the policies assigned directly to a user it deletes', async () => {
  const user = (await t.req('POST', '/users', { email: 'leaving@example.com' })).body.data as string;
  const policy = (await t.req('POST', '/policies', { name: 'Direct grant' })).body.data as string;
  const access = await t.req('POST', '/access', { user, policy });
  expect(access.status).toBe(200);
  const accessId = String(access.body.data?.id ?? access.body.data);
  expect((await t.req('DELETE', `/users/${user}`)).status).toBe(204);
  const rows = await run<{ action: string; user: string | null }>(t.services.database.db,
    "select action, \"user\" from svc_activity where collection = 'svc_access' and item = $1 order by id", [accessId]);
  expect(rows.map((r) => r.action)).toEqual(['create', 'delete']);
  expect(await run(t.services.database.db, 'select 1 from svc_access where "user" = $1', [user])).toHaveLength(0);
});
