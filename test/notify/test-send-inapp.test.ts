/** POST /notify/test-send through an in-app provider (SPEC.md: 200 {data: {success, message}}): the test notice is an
 * inbox notification for each recipient that is a user (user id or a user's address), from the caller; when none is
 * a user the answer is success false. Malformed bodies stay 400, non-admins 403. PGlite and Postgres. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';
import { addProvider } from './outbox-helpers.ts';

let t: TestApp;
let inapp: number;
let admin: string;
let other: string;
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);
const inbox = (subject: string) => q('select recipient, sender, subject, message, status from svc_notifications where subject = $1 order by recipient', [subject]);

beforeAll(async () => {
  t = await createTestApp();
  inapp = await addProvider(t, { name: 'inbox', channel: 'inapp', config: {} });
  [{ id: admin }] = await q('select id from svc_users where email = $1', [ADMIN_EMAIL]);
  ({ user: other } = await createPrincipal(t.services, { token: 'plain-user', permissions: [] }));
});
afterAll(async () => { await t.close(); });

describe('POST /notify/test-send with an in-app provider', () => {
  const cases: { name: string; recipients: () => string[]; subject?: string; success: boolean; reached: () => string[]; message: RegExp }[] = [
    { name: 'a user id', recipients: () => [admin], subject: 'Probe id', success: true, reached: () => [admin], message: /1 of 1/ },
    { name: "a user's address", recipients: () => [ADMIN_EMAIL.toUpperCase()], subject: 'Probe address', success: true, reached: () => [admin], message: /1 of 1/ },
    { name: 'two users and a stranger', recipients: () => [admin, other, randomUUID()], subject: 'Probe mixed', success: true, reached: () => [admin, other].sort(), message: /2 of 3/ },
    { name: 'no user at all', recipients: () => [randomUUID(), 'nobody@example.com', '#ops'], subject: 'Probe none', success: false, reached: () => [], message: /users/ },
  ];
  for (const c of cases) {
    it(`${c.name}: 200 {success: ${c.success}}`, async () => {
      const res = await t.req('POST', '/notify/test-send', { provider_id: inapp, recipients: c.recipients(), subject: c.subject, content: `body of ${c.name}` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toEqual({ success: c.success, message: expect.stringMatching(c.message) });
      const rows = await inbox(c.subject!);
      expect(rows.map((r) => r.recipient)).toEqual(c.reached());
      for (const r of rows) expect(r).toMatchObject({ sender: admin, message: `body of ${c.name}`, status: 'inbox' });
    });
  }

  it('an empty subject gets a default one; no log is written', async () => {
    const logs = (await q('select count(*)::int as n from svc_notify_logs'))[0].n;
    const res = await t.req('POST', '/notify/test-send', { provider_id: String(inapp), recipients: [admin], content: 'no subject' });
    expect(res.body.data.success).toBe(true);
    expect(await q("select subject from svc_notifications where message = 'no subject'")).toEqual([{ subject: 'Test notification' }]);
    expect((await q('select count(*)::int as n from svc_notify_logs'))[0].n).toBe(logs);
  });

  it('malformed bodies are 400, non-admins 403', async () => {
    const bad: Record<string, unknown>[] = [
      { provider_id: inapp, content: 'x' },
      { provider_id: inapp, recipients: [], content: 'x' },
      { provider_id: inapp, recipients: 'someone', content: 'x' },
      { provider_id: inapp, recipients: [42], content: 'x' },
      { provider_id: inapp, recipients: [admin] },
    ];
    for (const body of bad) {
      const res = await t.req('POST', '/notify/test-send', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    }
    expect((await t.req('POST', '/notify/test-send', { provider_id: inapp, recipients: [admin], content: 'x' }, { token: 'plain-user' })).status).toBe(403);
  });
});
