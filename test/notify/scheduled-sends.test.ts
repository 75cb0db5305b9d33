/** A send with scheduled_at stays pending on every channel (email, chat, in-app) until it is due: nothing reaches
 * the recipients before, it is delivered once the worker's clock passes scheduled_at, and it can be cancelled until
 * then (a cancelled one is never delivered). PGlite and Postgres. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { addContent, addProvider, addTemplate, startReceiver, type Receiver } from './outbox-helpers.ts';

let t: TestApp;
let smtp: TestSmtp;
let chat: Receiver;
let admin: string;
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);
const logOf = (id: number) => q('select * from svc_notify_logs where id = $1', [id]).then((r) => r[0]);

beforeAll(async () => {
  smtp = await startSmtp();
  chat = await startReceiver();
  t = await createTestApp({ env: { ...smtp.env, NOTIFY_SCAN_INTERVAL: '100ms' } });
  [{ id: admin }] = await q("select id from svc_users where email = 'admin@example.com'");
  const email = await addProvider(t, { name: 'mail', channel: 'email', type: 'smtp', config: { host: '127.0.0.1', port: smtp.port, from: 'notify@example.com' } });
  const chatProvider = await addProvider(t, { name: 'chat', channel: 'chat', config: { url: `${chat.url}/hook` } });
  const inapp = await addProvider(t, { name: 'inbox', channel: 'inapp', config: {} });
  await addTemplate(t, { id: 'later', channels: ['email', 'chat', 'inapp'], variables_schema: { type: 'object', properties: { tag: { type: 'string' } } } });
  await addContent(t, 'later', { provider_id: email, subject: 'Mail {{tag}}', content: '<p>mail {{tag}}</p>' });
  await addContent(t, 'later', { provider_id: chatProvider, subject: 'Chat {{tag}}', content: 'chat {{tag}}' });
  await addContent(t, 'later', { provider_id: inapp, subject: 'Inbox {{tag}}', content: 'inbox {{tag}}' });
});
afterAll(async () => { await t.close(); await smtp.close(); await chat.close(); });

/** Per channel: whether the message tagged `tag` reached its recipient. */
const delivered: Record<string, (tag: string) => Promise<boolean>> = {
  email: async (tag) => smtp.messages.some((m) => m.subject === `Mail ${tag}`),
  chat: async (tag) => chat.requests.some((r) => r.body?.subject === `Chat ${tag}`),
  inapp: async (tag) => (await q('select 1 from svc_notifications where recipient = $1 and subject = $2', [admin, `Inbox ${tag}`])).length > 0,
};

const trigger = async (channel: string, tag: string, at: Date): Promise<number> => {
  const res = await t.req('POST', '/notify/trigger', {
    template_id: 'later', channels: [channel], recipients: channel === 'chat' ? ['ops@example.com'] : [admin], variables: { tag }, scheduled_at: at.toISOString(),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.log_ids).toHaveLength(1);
  return res.body.data.log_ids[0];
};

describe('scheduled sends', () => {
  for (const channel of ['email', 'chat', 'inapp']) {
    it(`${channel}: pending until due, then delivered`, async () => {
      const tag = `${channel}-due`;
      const at = new Date(Date.now() + 3600_000);
      const id = await trigger(channel, tag, at);
      expect(await logOf(id)).toMatchObject({ status: 'pending', channel, sent_at: null });
      await t.services.notify.runOnce(new Date(at.getTime() - 1000));
      await new Promise((r) => setTimeout(r, 200)); // a background scan, too, finds nothing due
      expect((await logOf(id)).status).toBe('pending');
      expect(await delivered[channel](tag)).toBe(false);

      // The worker's clock reaches scheduled_at.
      await t.services.notify.runOnce(new Date(at.getTime() + 1000));
      const log = await logOf(id);
      expect(log.status).toBe('sent');
      expect(log.sent_at).not.toBeNull();
      expect(await delivered[channel](tag)).toBe(true);
    });

    it(`${channel}: cancellable until due, and then never delivered`, async () => {
      const tag = `${channel}-cancelled`;
      const at = new Date(Date.now() + 3600_000);
      const id = await trigger(channel, tag, at);
      const cancel = await t.req('PATCH', `/notify/logs/${id}/cancel`);
      expect(cancel.status).toBe(200);
      expect(cancel.body.data).toBe(id);
      await t.services.notify.runOnce(new Date(at.getTime() + 1000));
      expect((await logOf(id)).status).toBe('cancelled');
      expect(await delivered[channel](tag)).toBe(false);
    });
  }

  it('in-app without scheduled_at is still delivered at trigger time', async () => {
    const res = await t.req('POST', '/notify/trigger', { template_id: 'later', channels: ['inapp'], recipients: [admin], variables: { tag: 'now' } });
    expect(res.status).toBe(200);
    expect((await logOf(res.body.data.log_ids[0])).status).toBe('sent');
    expect(await delivered.inapp('now')).toBe(true);
  });

  it('a due in-app send whose recipients are no longer users fails instead of counting as sent', async () => {
    const [{ id: ghost }] = await q("insert into svc_users (id, email, status) values (gen_random_uuid(), 'ghost@example.com', 'active') returning id");
    const at = new Date(Date.now() + 3600_000);
    const res = await t.req('POST', '/notify/trigger', { template_id: 'later', channels: ['inapp'], recipients: [ghost], variables: { tag: 'ghost' }, scheduled_at: at.toISOString() });
    expect(res.status).toBe(200);
    await q('delete from svc_users where id = $1', [ghost]);
    await t.services.notify.runOnce(new Date(at.getTime() + 1000));
    const log = await logOf(res.body.data.log_ids[0]);
    expect(log.status).not.toBe('sent');
    expect(log.error_message).toMatch(/recipients/);
  });
});
