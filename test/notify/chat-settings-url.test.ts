/** A chat provider may be created without config.url: it then posts to the notify settings' chat_url (with its own
 * token, else the settings' chat_token); only a send with neither url is refused, at send time (test-send answers
 * {success: false}, a triggered log fails with the reason). PGlite and Postgres. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { addContent, addTemplate, startReceiver, waitFor, type Receiver } from './outbox-helpers.ts';

let t: TestApp;
let settingsHook: Receiver;
let ownHook: Receiver;
const q = (sql: string, params: unknown[] = []) => run<Record<string, any>>(t.services.database.db, sql, params);
const setSettings = async (v: { chat_url: string | null; chat_token: string | null }) => {
  const res = await t.req('PATCH', '/notify/settings', v);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const createChat = async (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const res = await t.req('POST', '/notify/providers', { name: `chat-${Object.keys(config).join('-') || 'bare'}`, channel: 'chat', type: null, config, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Number(res.body.data);
};

beforeAll(async () => {
  settingsHook = await startReceiver();
  ownHook = await startReceiver();
  t = await createTestApp({ env: { NOTIFY_SCAN_INTERVAL: '100ms', NOTIFY_RETRY_DELAY: '100ms', NOTIFY_MAX_ATTEMPTS: '2' } });
});
afterAll(async () => { await t.close(); await settingsHook.close(); await ownHook.close(); });

describe('chat provider without config.url', () => {
  it('is created (no url, or only a token); a bad url is still refused', async () => {
    expect(await createChat({})).toBeGreaterThan(0);
    expect(await createChat({ token: 'own-token' })).toBeGreaterThan(0);
    const bad = await t.req('POST', '/notify/providers', { name: 'x', channel: 'chat', config: { url: 'ftp://chat.example.com' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.field).toBe('config.url');
  });

  // test-send through the provider: where the post goes, with which token, or why it cannot go.
  const cases: { name: string; config: Record<string, unknown>; settings: { chat_url: 'settings' | null; chat_token: string | null }; expect: { hook: 'settings' | 'own'; auth: string | undefined } | RegExp }[] = [
    { name: 'no url: the settings url and token', config: {}, settings: { chat_url: 'settings', chat_token: 'settings-token' }, expect: { hook: 'settings', auth: 'Bearer settings-token' } },
    { name: 'no url, own token: the settings url, own token', config: { token: 'own-token' }, settings: { chat_url: 'settings', chat_token: 'settings-token' }, expect: { hook: 'settings', auth: 'Bearer own-token' } },
    { name: 'no url, no token anywhere: no Authorization', config: {}, settings: { chat_url: 'settings', chat_token: null }, expect: { hook: 'settings', auth: undefined } },
    { name: 'own url: never the settings token', config: { url: 'own' }, settings: { chat_url: 'settings', chat_token: 'settings-token' }, expect: { hook: 'own', auth: undefined } },
    { name: 'no url anywhere: refused at send time', config: { token: 'own-token' }, settings: { chat_url: null, chat_token: 'settings-token' }, expect: /no url.*chat_url/ },
  ];
  for (const c of cases) {
    it(`test-send: ${c.name}`, async () => {
      await setSettings({ chat_url: c.settings.chat_url ? `${settingsHook.url}/settings-hook` : null, chat_token: c.settings.chat_token });
      const config = c.config.url === 'own' ? { ...c.config, url: `${ownHook.url}/own-hook` } : c.config;
      const id = await createChat(config);
      const before = { settings: settingsHook.requests.length, own: ownHook.requests.length };
      const res = await t.req('POST', '/notify/test-send', { provider_id: id, recipients: ['#ops'], subject: 'Probe', content: c.name });
      expect(res.status).toBe(200);
      if (c.expect instanceof RegExp) {
        expect(res.body.data.success).toBe(false);
        expect(res.body.data.message).toMatch(c.expect);
        expect([settingsHook.requests.length, ownHook.requests.length]).toEqual([before.settings, before.own]);
        return;
      }
      expect(res.body.data.success, res.body.data.message).toBe(true);
      const hook = c.expect.hook === 'settings' ? settingsHook : ownHook;
      const other = c.expect.hook === 'settings' ? ownHook : settingsHook;
      expect(hook.requests.length).toBe((c.expect.hook === 'settings' ? before.settings : before.own) + 1);
      expect(other.requests.length).toBe(c.expect.hook === 'settings' ? before.own : before.settings);
      const req = hook.requests.at(-1)!;
      expect(req.path).toBe(c.expect.hook === 'settings' ? '/settings-hook' : '/own-hook');
      expect(req.headers.authorization).toBe(c.expect.auth);
      expect(req.body).toMatchObject({ subject: 'Probe', content: c.name });
    });
  }

  it('a triggered send through the url-less primary goes to the settings url; without any url the log fails with the reason', async () => {
    await setSettings({ chat_url: `${settingsHook.url}/settings-hook`, chat_token: 'settings-token' });
    const primary = await createChat({}, { is_primary: true });
    await addTemplate(t, { id: 'chat-fallback', channels: ['chat'] });
    await addContent(t, 'chat-fallback', { provider_id: primary, subject: 'Deploy', content: 'via settings url' });
    const ok = await t.req('POST', '/notify/trigger', { template_id: 'chat-fallback', recipients: ['ops@example.com'] });
    expect(ok.status).toBe(200);
    const sent = await waitFor(async () => (await q("select * from svc_notify_logs where id = $1 and status = 'sent'", [ok.body.data.log_ids[0]]))[0], 5000, 'sent');
    expect(sent.provider_id).toBe(primary);
    expect(settingsHook.requests.some((r) => r.body?.content === 'via settings url' && r.headers.authorization === 'Bearer settings-token')).toBe(true);

    await setSettings({ chat_url: null, chat_token: null });
    await new Promise((r) => setTimeout(r, 1100)); // the worker's provider resolution is kept for a second
    const none = await t.req('POST', '/notify/trigger', { template_id: 'chat-fallback', recipients: ['ops@example.com'] });
    expect(none.status).toBe(200);
    const failed = await waitFor(async () => (await q("select * from svc_notify_logs where id = $1 and status = 'failed'", [none.body.data.log_ids[0]]))[0], 5000, 'failed');
    expect(failed.error_message).toMatch(/no url.*chat_url/);
  });
});
