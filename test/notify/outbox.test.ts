/** POST /notify/trigger through the outbox worker to a real SMTP server: rendering (escaped vs raw, layout, subject,
 * locale fallback), cc_admin, validation before anything is written, scheduled sends, retries with backoff then
 * failed, in-app delivery, test-send, and who may trigger. PGlite and Postgres. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { addContent, addLayout, addProvider, addTemplate, headerOf, htmlOf, waitFor } from './outbox-helpers.ts';

let t: TestApp;
let smtp: TestSmtp;
let providerId: number;
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const logsCount = async () => (await q('select count(*)::int as n from svc_notify_logs'))[0].n as number;
const logOf = (id: number) => q('select * from svc_notify_logs where id = $1', [id]).then((r) => r[0]);

beforeAll(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ env: { ...smtp.env, NOTIFY_RETRY_DELAY: '100ms', NOTIFY_MAX_ATTEMPTS: '3', NOTIFY_SCAN_INTERVAL: '100ms' } });
  providerId = await addProvider(t, { name: 'local smtp', channel: 'email', type: 'smtp', config: { host: '127.0.0.1', port: smtp.port, from: 'notify@example.com' } });
  await addLayout(t, { id: 'frame', content: '<html><body><header>{{site}}</header>{{{content}}}<footer>bye {{name}}</footer></body></html>' });
  await addTemplate(t, {
    id: 'welcome', layout_id: 'frame',
    variables_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, html: { type: 'string' }, items: { type: 'array', items: { type: 'string' } }, vip: { type: 'boolean' }, site: { type: 'string' } } },
  });
  await addContent(t, 'welcome', { provider_id: providerId, locale: 'default', subject: 'Hello {{name}} & co', content: '<p>Hi {{name}}</p><div>{{{html}}}</div>{{#if vip}}<p>VIP</p>{{/if}}<ul>{{#each items}}<li>{{this}}</li>{{/each}}</ul>' });
  await addContent(t, 'welcome', { provider_id: providerId, locale: 'fr', subject: 'Bonjour {{name}}', content: '<p>Salut {{name}}</p>' });
  await addTemplate(t, { id: 'drafty', status: 'draft' });
  await addContent(t, 'drafty', { provider_id: providerId, content: 'x' });
});
afterAll(async () => { await t.close(); await smtp.close(); });

describe('POST /notify/trigger -> worker -> SMTP', () => {
  it('renders escaped and raw variables, #if, #each, the layout and the subject, and records the send', async () => {
    const res = await t.req('POST', '/notify/trigger', {
      template_id: 'welcome', recipients: ['ann@example.com'],
      variables: { name: '<b>Ann</b>', html: '<i>raw</i>', vip: true, items: ['one', 'two'], site: 'Site' }, metadata: { campaign: 'c1' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.log_ids).toHaveLength(1);
    const [id] = res.body.data.log_ids;
    const mail = await smtp.next('ann@example.com');
    expect(mail.subject).toBe('Hello <b>Ann</b> & co');
    expect(mail.from).toBe('notify@example.com');
    const html = htmlOf(mail.raw);
    expect(html).toContain('<header>Site</header>');
    expect(html).toContain('<p>Hi &lt;b&gt;Ann&lt;/b&gt;</p>');
    expect(html).toContain('<div><i>raw</i></div>');
    expect(html).toContain('<p>VIP</p><ul><li>one</li><li>two</li></ul>');
    expect(html).toContain('<footer>bye &lt;b&gt;Ann&lt;/b&gt;</footer>');
    expect(headerOf(mail.raw, 'Message-ID')).toMatch(new RegExp(`^<notify-${id}@example\\.com>$`));
    const log = await waitFor(async () => { const l = await logOf(id); return l.status === 'sent' ? l : null; }, 5000, 'sent');
    expect(log).toMatchObject({ template_id: 'welcome', channel: 'email', provider_id: providerId, attempts: 1, locale: 'en', metadata: { campaign: 'c1' }, recipients: ['ann@example.com'] });
    expect(log.sent_at).not.toBeNull();
    expect(log.provider_message_id).toBe(`<notify-${id}@example.com>`);
    expect(log.provider_response.accepted).toEqual(['ann@example.com']);
    expect(log.subject_rendered).toBe('Hello <b>Ann</b> & co');
    expect(log.content_rendered).toContain('<header>Site</header>');
  });

  it('chooses the content by locale, falling back to `default`', async () => {
    const fr = await t.req('POST', '/notify/trigger', { template_id: 'welcome', recipients: ['fr@example.com'], variables: { name: 'Luc' }, locale: 'fr' });
    expect(fr.status).toBe(200);
    const m1 = await smtp.next('fr@example.com');
    expect(m1.subject).toBe('Bonjour Luc');
    expect(htmlOf(m1.raw)).toContain('<p>Salut Luc</p>');
    const de = await t.req('POST', '/notify/trigger', { template_id: 'welcome', recipients: ['de@example.com'], variables: { name: 'Max' }, locale: 'de' });
    expect(de.status).toBe(200);
    expect((await smtp.next('de@example.com')).subject).toBe('Hello Max & co');
    expect((await logOf(de.body.data.log_ids[0])).locale).toBe('de');
  });

  it('cc_admin copies settings.admin_emails; cc and bcc reach the server; user ids become their email', async () => {
    expect((await t.req('PATCH', '/notify/settings', { admin_emails: ['boss@example.com'] })).status).toBe(200);
    await addTemplate(t, { id: 'alert', cc_admin: true });
    await addContent(t, 'alert', { provider_id: providerId, subject: 'Alert', content: '<p>alert</p>' });
    const [admin] = await q("select id from svc_users where email = 'admin@example.com'");
    const res = await t.req('POST', '/notify/trigger', { template_id: 'alert', recipients: [admin.id, 'x@example.com'], cc: ['c@example.com'], bcc: ['hidden@example.com'] });
    expect(res.status).toBe(200);
    const mail = await smtp.next('x@example.com');
    expect(mail.to.sort()).toEqual(['admin@example.com', 'boss@example.com', 'c@example.com', 'hidden@example.com', 'x@example.com']);
    expect(headerOf(mail.raw, 'Cc')).toContain('boss@example.com');
    expect(headerOf(mail.raw, 'Bcc')).toBeNull();
    const log = await logOf(res.body.data.log_ids[0]);
    expect(log.recipients).toEqual(['admin@example.com', 'x@example.com']);
    expect(log.cc).toEqual(['c@example.com', 'boss@example.com']);
  });

  it('validates before writing anything: variables schema, recipients, bounds, channels, scheduled_at, template status', async () => {
    const before = await logsCount();
    const cases: [unknown, RegExp][] = [
      [{ template_id: 'welcome', recipients: ['a@example.com'], variables: {} }, /"name"/],
      [{ template_id: 'welcome', recipients: ['a@example.com'], variables: { name: 5 } }, /"name" must be string/],
      [{ template_id: 'welcome', recipients: ['a@example.com'], variables: { name: 'A', items: [1] } }, /"items\.0"/],
      [{ template_id: 'welcome', recipients: ['nope'], variables: { name: 'A' } }, /"nope" is neither an email address nor a user id/],
      [{ template_id: 'welcome', recipients: ['00000000-0000-4000-8000-000000000000'], variables: { name: 'A' } }, /is not a user/],
      [{ template_id: 'welcome', recipients: [], variables: { name: 'A' } }, /at least 1/],
      [{ template_id: 'welcome', recipients: Array.from({ length: 101 }, (_, i) => `u${i}@example.com`), variables: { name: 'A' } }, /less than or equal to 100/],
      [{ template_id: 'welcome', recipients: ['a@example.com'], cc: ['bad'], variables: { name: 'A' } }, /"cc"/],
      [{ template_id: 'welcome', recipients: ['a@example.com'], channels: ['sms'], variables: { name: 'A' } }, /Unknown channel "sms"/],
      [{ template_id: 'welcome', recipients: ['a@example.com'], scheduled_at: 'tomorrow', variables: { name: 'A' } }, /scheduled_at/],
      [{ template_id: 'welcome', recipients: ['a@example.com'], scheduled_at: '2001-01-01T00:00:00Z', variables: { name: 'A' } }, /past/],
      [{ template_id: 'drafty', recipients: ['a@example.com'] }, /draft: only published/],
      [{ template_id: 'missing', recipients: ['a@example.com'] }, /doesn't exist/],
      [{ template_id: 'welcome', recipients: ['a@example.com'], variables: { name: 'A' }, extra: 1 }, /"extra" is not allowed/],
      [{ recipients: ['a@example.com'] }, /template_id/],
    ];
    for (const [body, message] of cases) {
      const res = await t.req('POST', '/notify/trigger', body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(code(res)).toBe('INVALID_PAYLOAD');
      expect(res.body.errors[0].message).toMatch(message);
    }
    expect(await logsCount()).toBe(before);
  });

  it('holds a scheduled log until it is due', async () => {
    const at = new Date(Date.now() + 3600_000);
    const res = await t.req('POST', '/notify/trigger', { template_id: 'welcome', recipients: ['later@example.com'], variables: { name: 'L' }, scheduled_at: at.toISOString() });
    expect(res.status).toBe(200);
    const [id] = res.body.data.log_ids;
    await t.services.notify.runOnce(new Date(at.getTime() - 1000));
    expect((await logOf(id)).status).toBe('pending');
    expect(smtp.messages.some((m) => m.to.includes('later@example.com'))).toBe(false);
    // The worker's clock reaches scheduled_at.
    expect(await t.services.notify.runOnce(new Date(at.getTime() + 1000))).toBeGreaterThanOrEqual(1);
    expect((await logOf(id)).status).toBe('sent');
    await smtp.next('later@example.com');
  });

  it('retries a refused mail with a growing backoff, then marks it failed', async () => {
    const res = await t.req('POST', '/notify/trigger', { template_id: 'welcome', recipients: ['refused@example.com'], variables: { name: 'R' } });
    const [id] = res.body.data.log_ids;
    const seen: { attempts: number; next: number | null }[] = [];
    const log = await waitFor(async () => {
      const l = await logOf(id);
      if (l.status === 'pending' && l.attempts > 0 && !seen.some((s) => s.attempts === l.attempts)) seen.push({ attempts: l.attempts, next: new Date(l.next_attempt_at).getTime() - new Date(l.updated_at).getTime() });
      return l.status === 'failed' ? l : null;
    }, 10_000, 'failed');
    expect(log.attempts).toBe(3);
    expect(log.error_message).toMatch(/550|rejected/);
    expect(log.sent_at).toBeNull();
    // Backoff doubles: the second wait is longer than the first (100 ms, then 200 ms).
    if (seen.length === 2) expect(seen[1].next!).toBeGreaterThan(seen[0].next!);
  });

  it('delivers in-app at trigger time: svc_notifications rows and a sent log', async () => {
    const inappProvider = await addProvider(t, { name: 'inbox', channel: 'inapp', config: {} });
    await addTemplate(t, { id: 'ping', channels: ['email', 'inapp'], variables_schema: { type: 'object', properties: { what: { type: 'string' } } } });
    await addContent(t, 'ping', { provider_id: providerId, subject: 'Ping {{what}}', content: '<p>{{what}}</p>' });
    await addContent(t, 'ping', { provider_id: inappProvider, subject: 'Ping {{what}}', content: 'You have {{what}}' });
    const [admin] = await q("select id from svc_users where email = 'admin@example.com'");
    const res = await t.req('POST', '/notify/trigger', { template_id: 'ping', recipients: [admin.id], variables: { what: 'mail' } });
    expect(res.status).toBe(200);
    expect(res.body.data.log_ids).toHaveLength(2);
    const logs = await q('select channel, status, recipients from svc_notify_logs where id = any($1::int[]) order by channel', [res.body.data.log_ids]);
    expect(logs[1]).toEqual({ channel: 'inapp', status: 'sent', recipients: [admin.id] });
    expect(await q("select subject, message from svc_notifications where recipient = $1 and subject = 'Ping mail'", [admin.id])).toEqual([{ subject: 'Ping mail', message: 'You have mail' }]);
    await smtp.next('admin@example.com');
    // In-app needs users: a plain address is refused for it, naming it.
    const bad = await t.req('POST', '/notify/trigger', { template_id: 'ping', recipients: ['stranger@example.com'], channels: ['inapp'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toMatch(/stranger@example.com/);
  });

  it('test-send goes through the provider synchronously and says whether it worked', async () => {
    const ok = await t.req('POST', '/notify/test-send', { provider_id: providerId, recipients: ['probe@example.com'], subject: 'Probe', content: '<p>probe</p>' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.success).toBe(true);
    expect((await smtp.next('probe@example.com')).subject).toBe('Probe');
    const refused = await t.req('POST', '/notify/test-send', { provider_id: providerId, recipients: ['refused-probe@example.com'], content: 'x' });
    expect(refused.body.data).toMatchObject({ success: false });
    expect(refused.body.data.message).toMatch(/550|rejected/);
    expect(code(await t.req('POST', '/notify/test-send', { provider_id: 999999, recipients: ['a@example.com'], content: 'x' }))).toBe('INVALID_PAYLOAD');
    expect(code(await t.req('POST', '/notify/test-send', { provider_id: providerId, recipients: ['a@example.com'] }))).toBe('INVALID_PAYLOAD');
  });

  it('anonymous callers get 401; others need create on svc_notify_logs (test-send: admins only)', async () => {
    const body = { template_id: 'welcome', recipients: ['p@example.com'], variables: { name: 'P' } };
    expect((await t.req('POST', '/notify/trigger', body, { token: null })).status).toBe(401);
    await createPrincipal(t.services, { token: 'notify-plain', permissions: [] });
    expect((await t.req('POST', '/notify/trigger', body, { token: 'notify-plain' })).status).toBe(403);
    await createPrincipal(t.services, { token: 'notify-sender', permissions: [{ collection: 'svc_notify_logs', action: 'create' }] });
    expect((await t.req('POST', '/notify/trigger', body, { token: 'notify-sender' })).status).toBe(200);
    await smtp.next('p@example.com');
    expect((await t.req('POST', '/notify/test-send', { provider_id: providerId, recipients: ['a@example.com'], content: 'x' }, { token: 'notify-sender' })).status).toBe(403);
  });
});
