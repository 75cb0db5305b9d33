/** /notify/layouts, /notify/templates and template contents: validation (placeholder, Handlebars, JSON schema,
 * channels, layout and provider references, uniqueness), defaults, the system-template rule, GET one with
 * contents, and permissions (anonymous 401, plain user 403, a permission on svc_notify_* grants). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
let email: number;
let chat: number;

const expect400 = async (method: string, path: string, body: unknown, contains: string) => {
  const res = await t.req(method, path, body);
  expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
  expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
  expect(res.body.errors[0].message).toContain(contains);
  return res;
};

beforeAll(async () => {
  t = await createTestApp();
  email = (await t.req('POST', '/notify/providers', { name: 'Mail', channel: 'email', type: 'sendmail', config: { from: 'a@b.co' } })).body.data;
  chat = (await t.req('POST', '/notify/providers', { name: 'Chat', channel: 'chat', config: { url: 'https://chat.example.com' } })).body.data;
  await createPrincipal(t.services, { token: 'nt-plain', appAccess: true, permissions: [] });
  await createPrincipal(t.services, {
    token: 'nt-editor',
    permissions: ['svc_notify_layouts', 'svc_notify_templates', 'svc_notify_template_contents'].flatMap((collection) =>
      (['create', 'read', 'update', 'delete'] as const).map((action) => ({ collection, action }))),
  });
  await createPrincipal(t.services, { token: 'nt-reader', permissions: [{ collection: 'svc_notify_templates', action: 'read' }] });
});
afterAll(async () => t?.close());

describe('layouts', () => {
  it('must contain {{{content}}} and compile; id is a slug or generated', async () => {
    await expect400('POST', '/notify/layouts', { id: 'no-slot', name: 'L', content: '<html>{{content}}</html>' }, '{{{content}}}');
    await expect400('POST', '/notify/layouts', { id: 'broken', name: 'L', content: '<html>\n{{#if x}}{{{content}}}\n</html>' }, 'line');
    await expect400('POST', '/notify/layouts', { id: 'bad id!', name: 'L', content: '{{{content}}}' }, 'id');
    // Handlebars parses nested blocks in time quadratic in the depth: deep nesting is refused before it parses.
    const started = Date.now();
    await expect400('POST', '/notify/layouts', { id: 'deep', name: 'L', content: `${'{{#if a}}'.repeat(20_000)}{{{content}}}${'{{/if}}'.repeat(20_000)}` }, 'nest');
    expect(Date.now() - started).toBeLessThan(5000);
    await expect400('POST', '/notify/layouts', { id: 'l', content: '{{{content}}}' }, 'name');
    await expect400('POST', '/notify/layouts', { id: 'l', name: 'L', content: '{{{content}}}', variables_schema: { type: 'nonsense' } }, 'variables_schema');
    await expect400('POST', '/notify/layouts', { id: 'l', name: 'L', content: '{{{content}}}', extra: 1 }, 'extra');
    expect(await t.req('POST', '/notify/layouts', { id: 'base', name: 'Base', content: '<html><body>{{{content}}}</body></html>', variables_schema: { type: 'object' } }))
      .toMatchObject({ status: 200, body: { data: 'base' } });
    expect((await t.req('POST', '/notify/layouts', { id: 'base', name: 'Again', content: '{{{content}}}' })).status).toBe(409);
    const generated = await t.req('POST', '/notify/layouts', { name: 'Fancy Layout!', content: '{{{content}}}' });
    expect(generated.status).toBe(200);
    expect(generated.body.data).toMatch(/^fancy-layout-[0-9a-f]{6}$/);
    expect((await t.req('GET', '/notify/layouts/base')).body.data).toMatchObject({ id: 'base', name: 'Base', variables_schema: { type: 'object' } });
    expect((await t.req('GET', '/notify/layouts?filter[id][_eq]=base&fields=id')).body).toEqual({ data: [{ id: 'base' }] });
    await expect400('PATCH', '/notify/layouts/base', { content: 'no slot' }, '{{{content}}}');
    expect((await t.req('PATCH', '/notify/layouts/base', { name: 'Base 2' })).body).toEqual({ data: 'base' });
    expect((await t.req('PATCH', '/notify/layouts/missing', { name: 'x' })).status).toBe(404);
    expect((await t.req('GET', '/notify/layouts/missing')).status).toBe(404);
    expect((await q("select content from svc_notify_layouts where id = 'base'"))[0].content).toContain('{{{content}}}');
  });
});

describe('templates', () => {
  it('validates fields and fills the defaults', async () => {
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', channels: [] }, 'channels');
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', channels: ['email', 'sms'] }, 'channels');
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', channels: 'email' }, 'channels');
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', layout_id: 'missing' }, 'layout_id');
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', status: 'live' }, 'status');
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', variables_schema: { properties: { a: { type: 12 } } } }, 'variables_schema');
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', variables_schema: 'string' }, 'variables_schema');
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', is_system: true }, 'is_system');
    await expect400('POST', '/notify/templates', { id: 't1', name: 'T', cc_admin: 'yes' }, 'cc_admin');
    await expect400('POST', '/notify/templates', { id: 't1' }, 'name');

    expect(await t.req('POST', '/notify/templates', { id: 'welcome', name: 'Welcome' })).toMatchObject({ status: 200, body: { data: 'welcome' } });
    expect((await t.req('GET', '/notify/templates/welcome')).body.data).toMatchObject({
      id: 'welcome', name: 'Welcome', channels: ['email'], cc_admin: false, status: 'draft', is_system: false, layout_id: null, contents: [],
    });
    const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    expect((await t.req('POST', '/notify/templates', { id: 'order', name: 'Order', channels: ['email', 'chat'], cc_admin: true, layout_id: 'base', status: 'published', variables_schema: schema })).status).toBe(200);
    expect((await t.req('GET', '/notify/templates/order')).body.data).toMatchObject({ channels: ['email', 'chat'], cc_admin: true, layout_id: 'base', status: 'published', variables_schema: schema });
    expect((await t.req('POST', '/notify/templates', { id: 'order', name: 'Dup' })).status).toBe(409);
    // Schemas with the same $id, and boolean schemas, compile independently of what was checked before.
    for (const id of ['with-id-1', 'with-id-2']) {
      expect((await t.req('POST', '/notify/templates', { id, name: id, variables_schema: { $id: 'https://example.com/s', type: 'object' } })).status).toBe(200);
    }
    expect((await t.req('PATCH', '/notify/templates/with-id-1', { variables_schema: true })).status).toBe(200);
    await expect400('PATCH', '/notify/templates/with-id-2', { variables_schema: { $ref: 'https://nowhere.example.com/x' } }, 'variables_schema');
    expect((await t.req('GET', '/notify/templates?filter[status][_eq]=published&fields=id')).body).toEqual({ data: [{ id: 'order' }] });
    await expect400('PATCH', '/notify/templates/order', { status: 'gone' }, 'status');
    await expect400('PATCH', '/notify/templates/order', { id: 'renamed' }, 'id');
    expect((await t.req('PATCH', '/notify/templates/order', { status: 'archived', description: 'd' })).body).toEqual({ data: 'order' });
    expect((await t.req('PATCH', '/notify/templates/missing', { name: 'x' })).status).toBe(404);
  });

  it('deleting a layout leaves its templates without one', async () => {
    await t.req('POST', '/notify/layouts', { id: 'temp-layout', name: 'Temp', content: '{{{content}}}' });
    await t.req('POST', '/notify/templates', { id: 'uses-temp', name: 'U', layout_id: 'temp-layout' });
    expect((await t.req('DELETE', '/notify/layouts/temp-layout')).status).toBe(204);
    expect((await t.req('GET', '/notify/templates/uses-temp')).body.data.layout_id).toBeNull();
    expect((await t.req('DELETE', '/notify/layouts/temp-layout')).status).toBe(404);
  });

  it('a system template cannot be deleted, only archived', async () => {
    await q("insert into svc_notify_templates (id, name, is_system) values ('sys-reset', 'Password reset', true)");
    await expect400('DELETE', '/notify/templates/sys-reset', undefined, 'archived');
    expect((await t.req('PATCH', '/notify/templates/sys-reset', { status: 'archived' })).status).toBe(200);
    await expect400('PATCH', '/notify/templates/sys-reset', { is_system: false }, 'is_system');
    expect(await q("select status, is_system from svc_notify_templates where id = 'sys-reset'")).toEqual([{ status: 'archived', is_system: true }]);
  });
});

describe('contents', () => {
  it('validates provider, channel, locale, content; fills defaults; unique per template, provider and locale', async () => {
    await expect400('POST', '/notify/templates/order/contents', { content: 'Hi' }, 'provider_id');
    await expect400('POST', '/notify/templates/order/contents', { provider_id: 999999, content: 'Hi' }, 'provider_id');
    await expect400('POST', '/notify/templates/order/contents', { provider_id: '1', content: 'Hi' }, 'provider_id');
    await expect400('POST', '/notify/templates/welcome/contents', { provider_id: chat, content: 'Hi' }, 'channel');
    await expect400('POST', '/notify/templates/order/contents', { provider_id: email }, 'content');
    await expect400('POST', '/notify/templates/order/contents', { provider_id: email, content: 'Hi {{#each items}}' }, 'content');
    await expect400('POST', '/notify/templates/order/contents', { provider_id: email, subject: '{{/if}}', content: 'Hi' }, 'subject');
    await expect400('POST', '/notify/templates/order/contents', { provider_id: email, content: 'Hi', locale: 'en US' }, 'locale');
    await expect400('POST', '/notify/templates/order/contents', { provider_id: email, content: 'Hi', metadata: [1] }, 'metadata');
    await expect400('POST', '/notify/templates/order/contents', { provider_id: email, content: 'Hi', template_id: 'welcome' }, 'template_id');
    expect((await t.req('POST', '/notify/templates/missing/contents', { provider_id: email, content: 'Hi' })).status).toBe(404);

    const first = await t.req('POST', '/notify/templates/order/contents', { provider_id: email, subject: 'Order {{id}}', content: '<p>Hello {{name}}</p>' });
    expect(first).toMatchObject({ status: 200, body: { data: expect.any(Number) } });
    const [row] = await q('select locale, active, provider, template_id from svc_notify_template_contents where id = $1', [first.body.data]);
    expect(row).toEqual({ locale: 'default', active: true, provider: 'email', template_id: 'order' });

    const dup = await t.req('POST', '/notify/templates/order/contents', { provider_id: email, content: 'Again' });
    expect(dup.status).toBe(409);
    expect(dup.body.errors[0].extensions.code).toBe('RECORD_NOT_UNIQUE');
    const de = (await t.req('POST', '/notify/templates/order/contents', { provider_id: email, locale: 'de', content: 'Hallo', metadata: { tag: 'x' }, active: false })).body.data;
    const chatContent = (await t.req('POST', '/notify/templates/order/contents', { provider_id: chat, content: 'New order {{id}}' })).body.data;

    const one = await t.req('GET', '/notify/templates/order');
    expect(one.body.data.contents.map((c: any) => c.id)).toEqual([first.body.data, de, chatContent]);
    expect(one.body.data.contents[1]).toMatchObject({ locale: 'de', active: false, metadata: { tag: 'x' }, provider_id: email });

    const list = await t.req('GET', '/notify/templates/order/contents?filter[locale][_eq]=de&fields=id,locale');
    expect(list.body).toEqual({ data: [{ id: de, locale: 'de' }] });
    expect((await t.req('GET', '/notify/templates/welcome/contents')).body).toEqual({ data: [] });

    // PATCH: same rules; moving onto an existing (provider, locale) is 409.
    const patchDup = await t.req('PATCH', `/notify/contents/${de}`, { locale: 'default' });
    expect(patchDup.status).toBe(409);
    await expect400('PATCH', `/notify/contents/${de}`, { content: '{{#if}}' }, 'content');
    await expect400('PATCH', `/notify/contents/${de}`, { content: null }, 'content');
    await expect400('PATCH', `/notify/contents/${de}`, { provider_id: 999999 }, 'provider_id');
    expect((await t.req('PATCH', `/notify/contents/${de}`, { locale: 'fr', active: true, subject: 'Commande {{id}}' })).body).toEqual({ data: de });
    expect((await q('select locale, active, subject from svc_notify_template_contents where id = $1', [de]))[0]).toEqual({ locale: 'fr', active: true, subject: 'Commande {{id}}' });
    expect((await t.req('PATCH', '/notify/contents/999999', { active: false })).status).toBe(404);

    // Narrowing the template's channels is refused while chat contents exist.
    await expect400('PATCH', '/notify/templates/order', { channels: ['email'] }, 'chat');
    expect((await t.req('DELETE', `/notify/contents/${chatContent}`)).status).toBe(204);
    expect((await t.req('PATCH', '/notify/templates/order', { channels: ['email'] })).status).toBe(200);
    expect((await t.req('DELETE', `/notify/contents/${chatContent}`)).status).toBe(404);

    // Deleting the template deletes its contents, recorded in activity.
    expect((await t.req('DELETE', '/notify/templates/order')).status).toBe(204);
    expect(await q("select id from svc_notify_template_contents where template_id = 'order'")).toEqual([]);
    const acts = await q("select action from svc_activity where collection = 'svc_notify_template_contents' and item = $1", [String(de)]);
    expect(acts.map((a) => a.action)).toEqual(expect.arrayContaining(['create', 'update', 'delete']));
    expect((await t.req('GET', '/notify/templates/order')).status).toBe(404);
  });
});

describe('permissions', () => {
  it('anonymous 401, plain user 403, admin or svc_notify_* permissions ok', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/notify/layouts'], ['POST', '/notify/layouts', { name: 'x', content: '{{{content}}}' }], ['GET', '/notify/layouts/base'],
      ['PATCH', '/notify/layouts/base', { name: 'x' }], ['DELETE', '/notify/layouts/base'],
      ['GET', '/notify/templates'], ['POST', '/notify/templates', { name: 'x' }], ['GET', '/notify/templates/welcome'],
      ['PATCH', '/notify/templates/welcome', { name: 'x' }], ['DELETE', '/notify/templates/welcome'],
      ['GET', '/notify/templates/welcome/contents'], ['POST', '/notify/templates/welcome/contents', { provider_id: email, content: 'x' }],
      ['PATCH', '/notify/contents/1', { active: false }], ['DELETE', '/notify/contents/1'],
    ];
    for (const [m, p, body] of routes) {
      expect((await t.req(m, p, body, { token: null })).status, `${m} ${p} anonymous`).toBe(401);
      expect((await t.req(m, p, body, { token: 'nt-plain' })).status, `${m} ${p} plain`).toBe(403);
    }
    // A reader of templates reads them, cannot write them, and sees no contents without permission on those.
    expect((await t.req('GET', '/notify/templates/welcome', undefined, { token: 'nt-reader' })).body.data).toMatchObject({ id: 'welcome', contents: [] });
    expect((await t.req('PATCH', '/notify/templates/welcome', { name: 'x' }, { token: 'nt-reader' })).status).toBe(403);
    expect((await t.req('GET', '/notify/layouts', undefined, { token: 'nt-reader' })).status).toBe(403);

    // An editor with the permissions does the whole cycle.
    const ed = { token: 'nt-editor' };
    expect((await t.req('POST', '/notify/layouts', { id: 'ed-layout', name: 'E', content: '{{{content}}}' }, ed)).status).toBe(200);
    expect((await t.req('POST', '/notify/templates', { id: 'ed-t', name: 'E', layout_id: 'ed-layout' }, ed)).status).toBe(200);
    const c = await t.req('POST', '/notify/templates/ed-t/contents', { provider_id: email, content: 'x' }, ed);
    expect(c.status).toBe(200);
    expect((await t.req('GET', '/notify/templates/ed-t', undefined, ed)).body.data.contents).toHaveLength(1);
    expect((await t.req('PATCH', `/notify/contents/${c.body.data}`, { active: false }, ed)).status).toBe(200);
    expect((await t.req('DELETE', '/notify/templates/ed-t', undefined, ed)).status).toBe(204);
    expect((await t.req('DELETE', '/notify/layouts/ed-layout', undefined, ed)).status).toBe(204);
    // Missing records look forbidden to non-admins (as Directus answers for items).
    expect((await t.req('GET', '/notify/templates/ed-t', undefined, ed)).status).toBe(403);
    // Providers stay admin-only even for the editor.
    expect((await t.req('GET', '/notify/providers', undefined, ed)).status).toBe(403);
  });
});
