/** /notify/providers and /notify/channels (Admin): per-type config validation, encryption at rest, masking,
 * the mask round-trip, one primary per channel, delete refused while referenced, and the decrypting store. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { isEncrypted } from '../../core/crypto/secret-box.ts';
import { enabledProviders, loadProvider, primaryProvider } from '../../core/notify/providers-store.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
const MASK = '********';
const smtp = (over: Record<string, unknown> = {}) => ({
  name: 'Main SMTP', channel: 'email', type: 'smtp',
  config: { host: 'smtp.example.com', port: 587, secure: false, user: 'mailer', pass: 'smtp-plain-pass', from: 'Site <noreply@example.com>' },
  ...over,
});
const primaries = async (channel: string) => (await q<{ id: number }>('select id from svc_notify_providers where channel = $1 and is_primary order by id', [channel])).map((r) => r.id);

beforeAll(async () => {
  t = await createTestApp();
  await createPrincipal(t.services, { token: 'np-plain', permissions: [{ collection: 'svc_notify_providers', action: 'read' }] });
});
afterAll(async () => t?.close());

describe('permissions', () => {
  it('anonymous 401, non-admin 403 (even with a permission), admin 200', async () => {
    for (const [m, p] of [['GET', '/notify/providers'], ['POST', '/notify/providers'], ['GET', '/notify/providers/1'], ['PATCH', '/notify/providers/1'],
      ['PATCH', '/notify/providers/1/primary'], ['DELETE', '/notify/providers/1'], ['GET', '/notify/channels']] as const) {
      const body = m === 'POST' || m === 'PATCH' ? {} : undefined;
      expect((await t.req(m, p, body, { token: null })).status, `${m} ${p} anonymous`).toBe(401);
      expect((await t.req(m, p, body, { token: 'np-plain' })).status, `${m} ${p} plain`).toBe(403);
    }
    expect((await t.req('GET', '/notify/providers')).status).toBe(200);
  });

  it('GET /notify/channels is the static catalog', async () => {
    const res = await t.req('GET', '/notify/channels');
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: any) => c.id)).toEqual(['email', 'inapp', 'chat']);
    for (const c of res.body.data) expect(Object.keys(c).sort()).toEqual(['description', 'icon', 'id', 'name']);
  });
});

describe('create and validation', () => {
  it('creates an smtp provider: 200 {data: id}; secrets encrypted at rest, masked on read', async () => {
    const res = await t.req('POST', '/notify/providers', smtp({ webhook_enabled: true, webhook_secret: 'hook-plain-secret' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: expect.any(Number) });
    const id = res.body.data;
    const [raw] = await q('select config::text as config, webhook_secret from svc_notify_providers where id = $1', [id]);
    expect(raw.config).not.toContain('smtp-plain-pass');
    expect(isEncrypted(JSON.parse(raw.config).pass)).toBe(true);
    expect(JSON.parse(raw.config).host).toBe('smtp.example.com');
    expect(raw.webhook_secret).not.toContain('hook-plain-secret');
    expect(isEncrypted(raw.webhook_secret)).toBe(true);

    const one = await t.req('GET', `/notify/providers/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({
      id, name: 'Main SMTP', channel: 'email', type: 'smtp', is_primary: false, enabled: true, webhook_enabled: true, webhook_secret: MASK,
      config: { host: 'smtp.example.com', port: 587, user: 'mailer', pass: MASK, from: 'Site <noreply@example.com>' },
    });
    const list = await t.req('GET', '/notify/providers');
    expect(JSON.stringify(list.body)).not.toContain('smtp-plain-pass');
    expect(JSON.stringify(list.body)).not.toContain('enc:v1:');

    const plain = await loadProvider(t.services.database.db, t.services.config.secret, id);
    expect(plain).toMatchObject({ id, config: { pass: 'smtp-plain-pass' }, webhook_secret: 'hook-plain-secret' });
  });

  it('validates type per channel and config per type', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [smtp({ type: undefined }), 'type'],
      [smtp({ type: 'pigeon' }), 'type'],
      [{ name: 'c', channel: 'chat', type: 'smtp', config: { url: 'https://chat.example.com/hook' } }, 'type'],
      [smtp({ channel: 'fax' }), 'channel'],
      [smtp({ name: '' }), 'name'],
      [smtp({ config: { host: 'h', port: 'x', from: 'a@b.co' } }), 'config.port'],
      [smtp({ config: { host: 'h', port: 70000, from: 'a@b.co' } }), 'config.port'],
      [smtp({ config: { port: 25, from: 'a@b.co' } }), 'config.host'],
      [smtp({ config: { host: 'h', port: 25 } }), 'config.from'],
      [smtp({ config: { host: 'h', port: 25, from: 'not an address' } }), 'config.from'],
      [smtp({ config: { host: 'h', port: 25, from: 'a@b.co', bogus: 1 } }), 'config.bogus'],
      [smtp({ type: 'cloud_mail', config: { region: 'eu-west-1', access_key: 'AK', from: 'a@b.co' } }), 'config.secret_key'],
      [smtp({ type: 'gateway_mail', config: { base_url: 'ftp://x', api_key: 'k', from: 'a@b.co' } }), 'config.base_url'],
      [smtp({ type: 'gateway_mail', config: { base_url: 'https://gw.example.com', from: 'a@b.co' } }), 'config.api_key'],
      [smtp({ type: 'sendmail', config: { path: 5, from: 'a@b.co' } }), 'config.path'],
      [{ name: 'c', channel: 'chat', config: { url: 'ftp://chat.example.com', token: 't' } }, 'config.url'],
      [{ name: 'i', channel: 'inapp', config: { x: 1 } }, 'config.x'],
      [smtp({ is_primary: 'yes' }), 'is_primary'],
      [smtp({ extra: 1 }), 'extra'],
      [smtp({ webhook_secret: MASK }), 'webhook_secret'],
      [smtp({ webhook_secret: 'x'.repeat(129) }), 'webhook_secret'],
      [smtp({ config: { host: 'h', port: 25, from: 'a@b.co', pass: MASK } }), 'config.pass'],
    ];
    for (const [body, field] of bad) {
      const res = await t.req('POST', '/notify/providers', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
      expect(res.body.errors[0].message).toContain(field);
    }
    expect((await t.req('POST', '/notify/providers', [1])).status).toBe(400);
    const ok = [
      smtp({ name: 'Cloud', type: 'cloud_mail', config: { region: 'eu-west-1', access_key: 'AKPLAIN', secret_key: 'SKPLAIN', from: 'a@b.co' } }),
      smtp({ name: 'Gateway', type: 'gateway_mail', config: { base_url: 'https://gw.example.com/v1', api_key: 'gw-plain-key', from: 'a@b.co' } }),
      smtp({ name: 'Sendmail', type: 'sendmail', config: { from: 'a@b.co' } }),
      { name: 'Chat', channel: 'chat', type: null, config: { url: 'https://chat.example.com/hook', token: 'chat-plain-token' } },
      { name: 'Inapp', channel: 'inapp' },
    ];
    for (const body of ok) expect((await t.req('POST', '/notify/providers', body)).status, JSON.stringify(body)).toBe(200);
    const [raw] = await q(`select string_agg(config::text, ' ') as all from svc_notify_providers`);
    for (const plain of ['AKPLAIN', 'SKPLAIN', 'gw-plain-key', 'chat-plain-token']) expect(raw.all).not.toContain(plain);
  });
});

describe('updates', () => {
  it('PATCH with the mask keeps the stored secret; a new value replaces it; partial config merges', async () => {
    const id = (await t.req('POST', '/notify/providers', smtp({ name: 'Roundtrip', webhook_secret: 'ws-1' }))).body.data;
    const shown = (await t.req('GET', `/notify/providers/${id}`)).body.data;
    // Send the whole record back as read: nothing changes.
    const res = await t.req('PATCH', `/notify/providers/${id}`, { name: 'Roundtrip 2', config: shown.config, webhook_secret: shown.webhook_secret });
    expect(res).toMatchObject({ status: 200, body: { data: id } });
    let plain = await loadProvider(t.services.database.db, t.services.config.secret, id);
    expect(plain).toMatchObject({ name: 'Roundtrip 2', config: { pass: 'smtp-plain-pass', host: 'smtp.example.com' }, webhook_secret: 'ws-1' });

    expect((await t.req('PATCH', `/notify/providers/${id}`, { config: { pass: 'new-pass', port: 2525 }, webhook_secret: 'ws-2' })).status).toBe(200);
    plain = await loadProvider(t.services.database.db, t.services.config.secret, id);
    expect(plain).toMatchObject({ config: { pass: 'new-pass', port: 2525, host: 'smtp.example.com' }, webhook_secret: 'ws-2' });
    const [raw] = await q('select config::text as config from svc_notify_providers where id = $1', [id]);
    expect(raw.config).not.toContain('new-pass');

    // A type change replaces the config: the mask has nothing of that type to keep.
    expect((await t.req('PATCH', `/notify/providers/${id}`, { type: 'gateway_mail' })).status).toBe(400);
    expect((await t.req('PATCH', `/notify/providers/${id}`, { type: 'gateway_mail', config: { base_url: 'https://gw.example.com', api_key: MASK, from: 'a@b.co' } })).status).toBe(400);
    expect((await t.req('PATCH', `/notify/providers/${id}`, { type: 'sendmail', config: { from: 'x@y.co' } })).status).toBe(200);
    expect((await t.req('GET', `/notify/providers/${id}`)).body.data).toMatchObject({ type: 'sendmail', config: { from: 'x@y.co' } });
    expect((await t.req('PATCH', `/notify/providers/${id}`, { channel: 'chat' })).status).toBe(400);
    expect((await t.req('PATCH', `/notify/providers/${id}`, { webhook_secret: null })).status).toBe(200);
    expect((await loadProvider(t.services.database.db, t.services.config.secret, id))!.webhook_secret).toBeNull();
    expect((await t.req('PATCH', '/notify/providers/999999', { name: 'x' })).status).toBe(404);
    expect((await t.req('GET', '/notify/providers/abc')).status).toBe(404);
  });

  it('exactly one primary per channel under create, PATCH and /primary', async () => {
    const a = (await t.req('POST', '/notify/providers', { name: 'A', channel: 'chat', config: { url: 'https://a.example.com' }, is_primary: true })).body.data;
    expect(await primaries('chat')).toEqual([a]);
    const b = (await t.req('POST', '/notify/providers', { name: 'B', channel: 'chat', config: { url: 'https://b.example.com' }, is_primary: true })).body.data;
    expect(await primaries('chat')).toEqual([b]);
    const c = (await t.req('POST', '/notify/providers', { name: 'C', channel: 'chat', config: { url: 'https://c.example.com' } })).body.data;
    expect(await primaries('chat')).toEqual([b]);
    expect(await t.req('PATCH', `/notify/providers/${c}/primary`)).toMatchObject({ status: 200, body: { data: c } });
    expect(await primaries('chat')).toEqual([c]);
    expect((await t.req('PATCH', `/notify/providers/${a}`, { is_primary: true })).status).toBe(200);
    expect(await primaries('chat')).toEqual([a]);
    // Another channel is untouched.
    const e = (await t.req('POST', '/notify/providers', smtp({ name: 'E', is_primary: true }))).body.data;
    expect(await primaries('chat')).toEqual([a]);
    expect(await primaries('email')).toEqual([e]);
    expect((await primaryProvider(t.services.database.db, t.services.config.secret, 'email'))!.id).toBe(e);
    // false clears the channel's primary.
    expect((await t.req('PATCH', `/notify/providers/${a}`, { is_primary: false })).status).toBe(200);
    expect(await primaries('chat')).toEqual([]);
    expect(await primaryProvider(t.services.database.db, t.services.config.secret, 'chat')).toBeNull();
    // Concurrent promotions still leave one primary.
    await Promise.all([a, b, c].map((id) => t.req('PATCH', `/notify/providers/${id}/primary`)));
    expect(await primaries('chat')).toHaveLength(1);
    // Concurrent creations as primary too.
    const created = await Promise.all([1, 2, 3].map((n) => t.req('POST', '/notify/providers', { name: `I${n}`, channel: 'inapp', is_primary: true })));
    expect(created.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await primaries('inapp')).toHaveLength(1);
    // A failed promotion changes nothing (validation runs before the demotion, all in one transaction).
    const before = await primaries('chat');
    expect((await t.req('PATCH', `/notify/providers/${[a, b, c].find((x) => x !== before[0])}`, { is_primary: true, config: { url: 'ftp://x' } })).status).toBe(400);
    expect(await primaries('chat')).toEqual(before);
    // A disabled primary is not the enabled primary.
    const [p] = await primaries('chat');
    await t.req('PATCH', `/notify/providers/${p}`, { enabled: false });
    expect(await primaryProvider(t.services.database.db, t.services.config.secret, 'chat')).toBeNull();
    expect((await enabledProviders(t.services.database.db, t.services.config.secret)).some((x) => x.id === p)).toBe(false);
  });

  it('standard query: filter, sort, limit, offset, fields', async () => {
    const res = await t.req('GET', '/notify/providers?filter[channel][_eq]=chat&sort=-id&limit=2&offset=1&fields=id,name,config');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['config', 'id', 'name']);
    expect(res.body.data[0].id).toBeGreaterThan(res.body.data[1].id);
    expect((await t.req('GET', '/notify/providers?filter[nope][_eq]=1')).status).toBeGreaterThanOrEqual(400);
  });
});

describe('delete', () => {
  it('is refused with 400 while template contents reference it, then 204', async () => {
    const id = (await t.req('POST', '/notify/providers', smtp({ name: 'Referenced' }))).body.data;
    expect((await t.req('POST', '/notify/templates', { id: 'np-ref', name: 'Ref', channels: ['email'] })).status).toBe(200);
    const content = (await t.req('POST', '/notify/templates/np-ref/contents', { provider_id: id, content: 'Hi' })).body.data;
    const res = await t.req('DELETE', `/notify/providers/${id}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID_PAYLOAD' } });
    expect(res.body.errors[0].message).toContain('np-ref');
    expect((await q('select 1 from svc_notify_providers where id = $1', [id]))).toHaveLength(1);
    expect((await t.req('DELETE', `/notify/contents/${content}`)).status).toBe(204);
    expect((await t.req('DELETE', `/notify/providers/${id}`)).status).toBe(204);
    expect((await t.req('GET', `/notify/providers/${id}`)).status).toBe(404);
    expect((await t.req('DELETE', `/notify/providers/${id}`)).status).toBe(404);
  });

  it('writes are recorded in svc_activity', async () => {
    const id = (await t.req('POST', '/notify/providers', smtp({ name: 'Audited' }))).body.data;
    const rows = await q("select action from svc_activity where collection = 'svc_notify_providers' and item = $1", [String(id)]);
    expect(rows.map((r) => r.action)).toContain('create');
    const [rev] = await q("select data::text as data from svc_revisions r join svc_activity a on a.id = r.activity where a.collection = 'svc_notify_providers' and a.item = $1", [String(id)]);
    expect(rev.data).not.toContain('smtp-plain-pass');
  });
});
