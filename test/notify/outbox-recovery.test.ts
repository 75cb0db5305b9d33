/** The mail server is down: an invitation still answers 204, its log is retried with backoff (visible with its error),
 * and it is sent once the server comes back on its port. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { freePort, startSmtpOn, waitFor, type PlainSmtp } from './outbox-helpers.ts';

let t: TestApp;
let port: number;
let smtp: PlainSmtp | null = null;
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);

beforeAll(async () => {
  port = await freePort();
  t = await createTestApp({ env: {
    EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: String(port), EMAIL_FROM: 'svc@example.com', PUBLIC_URL: 'https://cms.example.com',
    NOTIFY_RETRY_DELAY: '100ms', NOTIFY_RETRY_MAX_DELAY: '400ms', NOTIFY_MAX_ATTEMPTS: '50', NOTIFY_SCAN_INTERVAL: '100ms',
  } });
});
afterAll(async () => { await t.close(); await smtp?.close(); });

describe('SMTP down, then back', () => {
  it('answers 204, retries the invitation, and sends it when the server returns', async () => {
    const [{ id: role }] = await q('select id from svc_roles limit 1');
    const res = await t.req('POST', '/users/invite', { email: 'later@example.com', role });
    expect(res.status).toBe(204);
    const failing = await waitFor(async () => {
      const [l] = await q("select * from svc_notify_logs where recipients::text like '%later@example.com%'");
      return l && l.attempts >= 2 && l.status === 'pending' ? l : null;
    }, 8000, 'two failed attempts');
    expect(failing.error_message).toMatch(/ECONNREFUSED|connect/i);
    expect(new Date(failing.next_attempt_at).getTime()).toBeGreaterThan(new Date(failing.claimed_at).getTime());
    // GET-able like any log: the same row the /notify/logs endpoints read.
    expect(failing).toMatchObject({ template_id: null, channel: 'email', subject_rendered: "You've been invited", metadata: { kind: 'invite' } });

    smtp = await startSmtpOn(port);
    const sent = await waitFor(async () => {
      const [l] = await q("select * from svc_notify_logs where recipients::text like '%later@example.com%'");
      return l.status === 'sent' ? l : null;
    }, 8000, 'sent after recovery');
    expect(sent.attempts).toBeGreaterThanOrEqual(3);
    expect(sent.error_message).toBeNull();
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0].to).toEqual(['later@example.com']);
    expect(smtp.messages[0].text).toMatch(/https:\/\/cms\.example\.com\/admin\/accept-invite\?token=/);
  });
});
