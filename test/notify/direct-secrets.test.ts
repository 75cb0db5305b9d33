/** Direct service mail (password reset, invitation, e-mail verification) carries a live token: its log never holds
 * the token readable (content_rendered has it redacted, the sent message is sealed and dropped once sent), these logs
 * are admin-only whatever a policy grants on svc_notify_logs, and the mail itself still carries a working link, also
 * when it goes out on a retry after the mail server was down. PGlite and Postgres. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { ADMIN_EMAIL } from '../helpers/template.ts';
import { REDACT_STORED_TOKENS } from '../../migrations/0007_notify_sealed_content.ts';
import { freePort, startSmtpOn, waitFor, type PlainSmtp } from './outbox-helpers.ts';

const LOW = 'log-reader-token';
const anon = (t: TestApp, path: string, body: unknown) => t.req('POST', path, body, { token: null });
const rows = (t: TestApp, sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);
const logOf = async (t: TestApp, to: string) => (await rows(t, 'select * from svc_notify_logs where recipients::text like $1 order by id desc limit 1', [`%${to}%`]))[0];

/** Whatever the low reader can get at through every read path, as one string. */
async function lowReaderSees(t: TestApp, logId: number): Promise<{ text: string; statuses: number[] }> {
  const list = await t.req('GET', '/notify/logs?limit=-1', undefined, { token: LOW });
  const one = await t.req('GET', `/notify/logs/${logId}`, undefined, { token: LOW });
  const items = await t.req('GET', '/items/svc_notify_logs?limit=-1', undefined, { token: LOW });
  const gql = await t.req('POST', '/graphql/system', { query: '{ svc_notify_logs(limit: -1) { id content_rendered variables metadata recipients } }' }, { token: LOW });
  const stats = await t.req('GET', '/notify/logs/stats', undefined, { token: LOW });
  const events = await t.req('GET', '/items/svc_notify_delivery_events?fields=log_id.*', undefined, { token: LOW });
  return {
    text: JSON.stringify([list.body, one.body, items.body, gql.body, stats.body, events.body]),
    statuses: [list.status, one.status, gql.status, stats.status],
  };
}

/** Rows of activity and revisions that mention the value anywhere. */
async function trailMentions(t: TestApp, value: string): Promise<number> {
  const [a] = await rows(t, 'select count(*)::int as n from svc_activity where row_to_json(svc_activity)::text like $1', [`%${value}%`]);
  const [r] = await rows(t, 'select count(*)::int as n from svc_revisions where row_to_json(svc_revisions)::text like $1', [`%${value}%`]);
  return a.n + r.n;
}

describe('direct mail with the mail server up', () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let role: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    t = await createTestApp({ env: { ...smtp.env, RATE_LIMITER_ENABLED: 'false', PUBLIC_URL: 'https://cms.example.com', NOTIFY_SCAN_INTERVAL: '100ms' } });
    ({ role } = await createPrincipal(t.services, {
      token: LOW,
      permissions: [
        { collection: 'svc_notify_logs', action: 'read' }, { collection: 'svc_notify_logs', action: 'update' },
        { collection: 'svc_notify_logs', action: 'delete' }, { collection: 'svc_notify_delivery_events', action: 'read' },
        { collection: 'svc_activity', action: 'read' }, { collection: 'svc_revisions', action: 'read' },
      ],
    }));
    await rows(t, `update svc_settings set public_registration = true, public_registration_verify_email = true, public_registration_role = $1`, [role]);
  });
  afterAll(async () => { await t.close(); await smtp.close(); });

  // Each kind: how to ask for the mail, and how to use its token (the proof that the link works).
  const kinds: { kind: string; to: string; ask: (t: TestApp) => Promise<number>; use: (t: TestApp, token: string) => Promise<void> }[] = [
    {
      kind: 'password-reset', to: ADMIN_EMAIL,
      ask: async (t) => (await anon(t, '/auth/password/request', { email: ADMIN_EMAIL })).status,
      use: async (t, token) => {
        expect((await anon(t, '/auth/password/reset', { token, password: 'taken-over-1' })).status).toBe(204);
        expect((await anon(t, '/auth/login', { email: ADMIN_EMAIL, password: 'taken-over-1' })).status).toBe(200);
      },
    },
    {
      kind: 'invite', to: 'invited@example.com',
      ask: async (t) => (await t.req('POST', '/users/invite', { email: 'invited@example.com', role })).status,
      use: async (t, token) => {
        expect((await anon(t, '/users/invite/accept', { token, password: 'invited-pass-1' })).status).toBe(204);
        expect((await anon(t, '/auth/login', { email: 'invited@example.com', password: 'invited-pass-1' })).status).toBe(200);
      },
    },
    {
      kind: 'verify-email', to: 'newcomer@example.com',
      ask: async (t) => (await anon(t, '/users/register', { email: 'newcomer@example.com', password: 'newcomer-pass-1' })).status,
      use: async (t, token) => {
        expect((await t.req('GET', `/users/register/verify-email?token=${encodeURIComponent(token)}`, undefined, { token: null })).status).toBe(204);
        expect((await anon(t, '/auth/login', { email: 'newcomer@example.com', password: 'newcomer-pass-1' })).status).toBe(200);
      },
    },
  ];

  for (const k of kinds) {
    it(`${k.kind}: the log holds no token, a non-admin reader sees no such log, the mailed link works`, async () => {
      expect(await k.ask(t)).toBe(204);
      const mail = await smtp.next(k.to);
      const token = smtp.tokenOf(mail);
      expect(token.length).toBeGreaterThan(20);
      const log = await waitFor(async () => { const l = await logOf(t, k.to); return l?.status === 'sent' ? l : null; }, 5000, 'sent');
      expect(log.metadata).toEqual({ kind: k.kind });

      // Stored: redacted, and nothing sealed left once sent.
      expect(JSON.stringify(log)).not.toContain(token);
      expect(log.content_rendered).toContain('[redacted]');
      expect(log.content_sealed).toBeNull();

      // The admin reads the log (redacted); the sealed column is concealed.
      const asAdmin = await t.req('GET', `/notify/logs/${log.id}?fields=*`);
      expect(asAdmin.status).toBe(200);
      expect(asAdmin.body.data.content_rendered).toContain('[redacted]');
      expect(JSON.stringify(asAdmin.body)).not.toContain(token);

      // A non-admin with read (and update, delete) on svc_notify_logs: no such log on any read path.
      const seen = await lowReaderSees(t, log.id);
      expect(seen.text).not.toContain(token);
      expect(seen.text).not.toContain(k.to);
      expect(seen.statuses).toEqual([200, 403, 200, 200]);
      expect((await t.req('DELETE', `/notify/logs/${log.id}`, undefined, { token: LOW })).status).toBe(403);
      expect((await t.req('PATCH', `/notify/logs/${log.id}/cancel`, undefined, { token: LOW })).status).toBe(403);
      expect(await logOf(t, k.to)).toBeTruthy();

      // No activity or revision row carries the token.
      expect(await trailMentions(t, token)).toBe(0);

      // The mailed link works.
      await k.use(t, token);
    });
  }

  it('the upgrade redacts tokens that logs written before hold in clear (direct mail only)', async () => {
    const legacy = (status: string, kind: string) => rows(t, `insert into svc_notify_logs (status, channel, recipients, subject_rendered, content_rendered, metadata)
      values ($1, 'email', '["old@example.com"]', 'Old', $2, $3::json) returning id`,
    [status, '<a href="https://cms.example.com/admin/reset-password?token=eyJhbGci.eyJlbWFpbCI6.c2lnbmF0dXJl&amp;x=1">link</a>', JSON.stringify({ kind })]).then((r) => r[0].id as number);
    const sent = await legacy('sent', 'password-reset');
    const failed = await legacy('failed', 'invite');
    const otherKind = await legacy('cancelled', 'something-else');
    await rows(t, REDACT_STORED_TOKENS);
    const content = async (id: number) => (await rows(t, 'select content_rendered from svc_notify_logs where id = $1', [id]))[0].content_rendered as string;
    expect(await content(sent)).toBe('<a href="https://cms.example.com/admin/reset-password?token=[redacted]&amp;x=1">link</a>');
    expect(await content(failed)).toContain('token=[redacted]&amp;');
    expect(await content(otherKind)).toContain('token=eyJhbGci');
  });

  it('template sends stay readable to the non-admin reader (only direct mail is admin-only)', async () => {
    const [{ id }] = await rows(t, `insert into svc_notify_logs (status, template_id, channel, recipients, subject_rendered, content_rendered)
      values ('sent', null, 'chat', '["#ops"]', 'Chat', 'ops notice') returning id`);
    const one = await t.req('GET', `/notify/logs/${id}`, undefined, { token: LOW });
    expect(one.status).toBe(200);
    expect(one.body.data.content_rendered).toBe('ops notice');
  });
});

describe('direct mail while the mail server is down', () => {
  let t: TestApp;
  let port: number;
  let smtp: PlainSmtp | null = null;

  beforeAll(async () => {
    port = await freePort();
    t = await createTestApp({ env: {
      EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: String(port), EMAIL_FROM: 'svc@example.com', PUBLIC_URL: 'https://cms.example.com',
      RATE_LIMITER_ENABLED: 'false', NOTIFY_RETRY_DELAY: '100ms', NOTIFY_RETRY_MAX_DELAY: '300ms', NOTIFY_MAX_ATTEMPTS: '50', NOTIFY_SCAN_INTERVAL: '100ms',
    } });
  });
  afterAll(async () => { await t.close(); await smtp?.close(); });

  it('keeps the token sealed while retrying, then sends a working link and drops the sealed copy', async () => {
    expect((await anon(t, '/auth/password/request', { email: ADMIN_EMAIL })).status).toBe(204);
    const pending = await waitFor(async () => {
      const l = await logOf(t, ADMIN_EMAIL);
      return l && l.attempts >= 2 && l.status === 'pending' ? l : null;
    }, 8000, 'two failed attempts');
    expect(pending.error_message).toMatch(/ECONNREFUSED|connect/i);
    expect(pending.content_rendered).toContain('[redacted]');
    expect(pending.content_sealed).toMatch(/^enc:v1:/);
    const asAdmin = await t.req('GET', `/notify/logs/${pending.id}?fields=content_sealed,content_rendered`);
    expect(asAdmin.body.data.content_sealed).toBe('**********');

    smtp = await startSmtpOn(port);
    const sent = await waitFor(async () => { const l = await logOf(t, ADMIN_EMAIL); return l.status === 'sent' ? l : null; }, 8000, 'sent after recovery');
    expect(sent.content_sealed).toBeNull();
    expect(smtp.messages).toHaveLength(1);
    const token = new URL(/https?:\/\/\S+/.exec(smtp.messages[0].text)![0]).searchParams.get('token')!;
    expect(token.length).toBeGreaterThan(20);
    // What was stored while it waited never held the token.
    expect(JSON.stringify(pending)).not.toContain(token);
    expect(JSON.stringify(sent)).not.toContain(token);

    expect((await anon(t, '/auth/password/reset', { token, password: 'after-retry-1' })).status).toBe(204);
    expect((await anon(t, '/auth/login', { email: ADMIN_EMAIL, password: 'after-retry-1' })).status).toBe(200);
  });

  it('cancelling a pending direct mail drops its sealed copy', async () => {
    // The server refuses mailboxes named `refused...`: the invitation waits for its next attempt.
    const [{ id: role }] = await rows(t, 'select id from svc_roles limit 1');
    expect((await t.req('POST', '/users/invite', { email: 'refused-never@example.com', role })).status).toBe(204);
    const pending = await waitFor(async () => { const l = await logOf(t, 'refused-never@example.com'); return l?.status === 'pending' && l.attempts >= 1 ? l : null; }, 8000, 'a failed attempt');
    expect(pending.error_message).toMatch(/550/);
    expect(pending.content_sealed).toMatch(/^enc:v1:/);
    const cancel = await waitFor(async () => {
      const res = await t.req('PATCH', `/notify/logs/${pending.id}/cancel`);
      return res.status === 200 ? res : null; // the worker may hold it in `sending` for a moment
    }, 8000, 'cancelled');
    expect(cancel.body.data).toBe(pending.id);
    const after = await logOf(t, 'refused-never@example.com');
    expect(after.status).toBe('cancelled');
    expect(after.content_sealed).toBeNull();
  });
});
