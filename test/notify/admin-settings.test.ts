/** GET/PATCH /notify/settings: Auth, and read/update permission on svc_notify_settings for non-admins;
 * created on first read; validation; secrets encrypted at rest, masked on read, kept when the mask comes back. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { isEncrypted } from '../../core/crypto/secret-box.ts';
import { loadNotifySettings } from '../../core/notify/settings.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const MASK = '********';

beforeAll(async () => {
  t = await createTestApp();
  await createPrincipal(t.services, { token: 'ns-plain', appAccess: true, permissions: [] });
  await createPrincipal(t.services, { token: 'ns-reader', permissions: [{ collection: 'svc_notify_settings', action: 'read' }] });
  await createPrincipal(t.services, {
    token: 'ns-editor',
    permissions: [{ collection: 'svc_notify_settings', action: 'read' }, { collection: 'svc_notify_settings', action: 'update' }],
  });
});
afterAll(async () => t?.close());

describe('notify settings', () => {
  it('anonymous 401; a plain (app) user 403 on read and update; permissions decide for non-admins', async () => {
    expect((await t.req('GET', '/notify/settings', undefined, { token: null })).status).toBe(401);
    expect((await t.req('PATCH', '/notify/settings', { smtp_host: 'x' }, { token: null })).status).toBe(401);
    expect(await t.req('GET', '/notify/settings', undefined, { token: 'ns-plain' })).toMatchObject({ status: 403, body: { errors: [{ extensions: { code: 'FORBIDDEN' } }] } });
    expect((await t.req('PATCH', '/notify/settings', { smtp_host: 'evil.example.com' }, { token: 'ns-plain' })).status).toBe(403);
    // Forbidden before validation: the plain user learns nothing about the payload rules.
    expect((await t.req('PATCH', '/notify/settings', { smtp_port: 'x' }, { token: 'ns-plain' })).status).toBe(403);
    expect((await t.req('GET', '/notify/settings', undefined, { token: 'ns-reader' })).status).toBe(200);
    expect((await t.req('PATCH', '/notify/settings', { smtp_host: 'x' }, { token: 'ns-reader' })).status).toBe(403);
    expect(await t.req('PATCH', '/notify/settings', { smtp_host: 'editor.example.com' }, { token: 'ns-editor' }))
      .toMatchObject({ status: 200, body: { data: { smtp_host: 'editor.example.com' } } });
  });

  it('is created with its defaults on first read', async () => {
    await q('delete from svc_notify_settings');
    const res = await t.req('GET', '/notify/settings');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: 1, email_transport: 'smtp', smtp_secure: false, default_locale: 'en', smtp_pass: null });
    expect(await q('select id from svc_notify_settings')).toEqual([{ id: 1 }]);
  });

  it('encrypts secrets at rest, masks them on read and keeps them when the mask comes back', async () => {
    const res = await t.req('PATCH', '/notify/settings', {
      email_transport: 'cloud_mail', smtp_host: 'smtp.example.com', smtp_port: 465, smtp_user: 'u', smtp_pass: 'plain-smtp-pass', smtp_secure: true,
      cloud_mail_region: 'eu-west-1', cloud_mail_access_key: 'plain-access', cloud_mail_secret_key: 'plain-secret',
      email_from: 'Site <noreply@example.com>', admin_emails: ['ops@example.com', 'boss@example.com'],
      chat_url: 'https://chat.example.com/hook', chat_token: 'plain-chat-token', default_locale: 'de', default_channels: ['email', 'inapp'],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      email_transport: 'cloud_mail', smtp_port: 465, smtp_pass: MASK, cloud_mail_access_key: MASK, cloud_mail_secret_key: MASK, chat_token: MASK,
      admin_emails: ['ops@example.com', 'boss@example.com'], default_channels: ['email', 'inapp'], default_locale: 'de',
    });
    const [raw] = await q('select row_to_json(s)::text as text, smtp_pass, cloud_mail_access_key, cloud_mail_secret_key, chat_token from svc_notify_settings s');
    for (const plain of ['plain-smtp-pass', 'plain-access', 'plain-secret', 'plain-chat-token']) expect(raw.text).not.toContain(plain);
    for (const k of ['smtp_pass', 'cloud_mail_access_key', 'cloud_mail_secret_key', 'chat_token']) expect(isEncrypted(raw[k])).toBe(true);
    expect(JSON.stringify((await t.req('GET', '/notify/settings')).body)).not.toContain('plain-');

    // Round trip: the settings as read, sent back, change nothing.
    const shown = (await t.req('GET', '/notify/settings')).body.data;
    const { id: _id, ...back } = shown;
    expect((await t.req('PATCH', '/notify/settings', { ...back, smtp_host: 'other.example.com' })).status).toBe(200);
    let plain = await loadNotifySettings(t.services.database.db, t.services.config.secret);
    expect(plain).toMatchObject({ smtp_host: 'other.example.com', smtp_pass: 'plain-smtp-pass', cloud_mail_access_key: 'plain-access', cloud_mail_secret_key: 'plain-secret', chat_token: 'plain-chat-token' });

    expect((await t.req('PATCH', '/notify/settings', { smtp_pass: 'second-pass', chat_token: null })).status).toBe(200);
    plain = await loadNotifySettings(t.services.database.db, t.services.config.secret);
    expect(plain).toMatchObject({ smtp_pass: 'second-pass', chat_token: null });
    expect((await t.req('GET', '/notify/settings')).body.data).toMatchObject({ smtp_pass: MASK, chat_token: null });
  });

  it('validates types', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ email_transport: 'pigeon' }, 'email_transport'],
      [{ email_transport: 'gateway_mail' }, 'email_transport'],
      [{ smtp_port: '587' }, 'smtp_port'],
      [{ smtp_port: 1.5 }, 'smtp_port'],
      [{ smtp_port: 0 }, 'smtp_port'],
      [{ smtp_secure: 'true' }, 'smtp_secure'],
      [{ admin_emails: 'ops@example.com' }, 'admin_emails'],
      [{ admin_emails: ['ops@example.com', 'nope'] }, 'admin_emails[1]'],
      [{ default_channels: ['email', 'sms'] }, 'default_channels'],
      [{ default_channels: 'email' }, 'default_channels'],
      [{ chat_url: 'javascript:alert(1)' }, 'chat_url'],
      [{ email_from: 'not-an-address' }, 'email_from'],
      [{ default_locale: '' }, 'default_locale'],
      [{ unknown_setting: 1 }, 'unknown_setting'],
    ];
    for (const [body, field] of bad) {
      const res = await t.req('PATCH', '/notify/settings', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID_PAYLOAD' } });
      expect(res.body.errors[0].message).toContain(field);
    }
    expect((await t.req('PATCH', '/notify/settings', [1])).status).toBe(400);
    expect((await t.req('PATCH', '/notify/settings', { smtp_port: null, admin_emails: [], default_channels: [] })).status).toBe(200);
  });

  it('updates are recorded in svc_activity', async () => {
    await t.req('PATCH', '/notify/settings', { smtp_user: 'audited' });
    const rows = await q("select action from svc_activity where collection = 'svc_notify_settings' and item = '1'");
    expect(rows.map((r) => r.action)).toContain('update');
  });
});
