/** POST /notify/preview and /notify/preview/frame (core/notify/preview.ts): a message rendered as a trigger renders it
 * (the same text a pending log gets), with the layout being edited, a stored one or the template's, the variables
 * checked against the template's schema without failing the preview, text that does not compile refused; the frame
 * as a sandboxed HTML document, only for a form posted from this origin; and who may ask (admin, a user who may read
 * templates and layouts, one whose row filter hides the template, one without permission, the public, a share token). */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { addContent, addLayout, addProvider, addTemplate } from './outbox-helpers.ts';

let t: TestApp;
let shareToken: string;
const LAYOUT = '<html><body><header>{{brand}}</header>{{{content}}}</body></html>';
const SUBJECT = 'Welcome {{name}} & co';
const CONTENT = '<p style="color:#333">Hello {{name}}</p>{{#if vip}}<b>VIP</b>{{/if}}';

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services, { seed: true });
  const provider = await addProvider(t, { name: 'preview-smtp', channel: 'email', type: 'smtp', config: { host: '127.0.0.1', port: 2525, from: 'a@example.com' } });
  await addLayout(t, { id: 'preview-base', content: LAYOUT });
  await addTemplate(t, {
    id: 'preview-welcome', channels: ['email', 'chat'], layout_id: 'preview-base',
    variables_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, vip: { type: 'boolean' } } },
  });
  await addTemplate(t, { id: 'preview-hidden' });
  await addContent(t, 'preview-welcome', { provider_id: provider, subject: SUBJECT, content: CONTENT });
  await createPrincipal(t.services, {
    token: 'preview-editor', appAccess: true,
    permissions: [{ collection: 'svc_notify_templates', action: 'read', permissions: { id: { _starts_with: 'preview-w' } } }, { collection: 'svc_notify_layouts', action: 'read' }],
  });
  await createPrincipal(t.services, { token: 'preview-templates-only', appAccess: true, permissions: [{ collection: 'svc_notify_templates', action: 'read' }] });
  await createPrincipal(t.services, { token: 'preview-nobody', appAccess: true, permissions: [{ collection: 'posts', action: 'read' }] });
  const { role } = await createPrincipal(t.services, { token: 'preview-share-role', appAccess: true, permissions: [{ collection: 'svc_notify_templates', action: 'read' }] });
  const share = randomUUID();
  await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, role]);
  shareToken = (await t.req('POST', '/shares/auth', { share }, { token: null })).body.data.access_token;
});
afterAll(async () => { await t?.close(); });

const preview = (body: unknown, token?: string | null) => t.req('POST', '/notify/preview', body, token === undefined ? {} : { token });

describe('POST /notify/preview', () => {
  it('renders what a trigger writes to the log, layout and all', async () => {
    const variables = { name: 'Ann <Lee>', vip: true, brand: 'Acme' };
    const trig = await t.req('POST', '/notify/trigger', {
      template_id: 'preview-welcome', recipients: ['ann@example.com'], channels: ['email'], variables, scheduled_at: '2999-01-01T00:00:00Z',
    });
    expect(trig.status, JSON.stringify(trig.body)).toBe(200);
    const [log] = await run<{ subject_rendered: string; content_rendered: string }>(t.services.database.db,
      'select subject_rendered, content_rendered from svc_notify_logs where id = $1', [trig.body.data.log_ids[0]]);
    const res = await preview({ template_id: 'preview-welcome', subject: SUBJECT, content: CONTENT, variables });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({ channel: 'email', subject: log.subject_rendered, content: log.content_rendered, variables_error: null });
    expect(res.body.data.content).toBe('<html><body><header>Acme</header><p style="color:#333">Hello Ann &lt;Lee&gt;</p><b>VIP</b></body></html>');
    expect(res.body.data.subject).toBe('Welcome Ann <Lee> & co');
  });

  it('wraps in the layout being edited, a stored one, or none; chat messages have no layout', async () => {
    const edited = await preview({ layout: '<main>{{{content}}}</main>', content: '<p>{{x}}</p>', variables: { x: 1 } });
    expect(edited.body.data).toMatchObject({ channel: 'email', content: '<main><p>1</p></main>', subject: '' });
    const stored = await preview({ layout_id: 'preview-base', content: 'Hi', variables: { brand: 'B' } });
    expect(stored.body.data.content).toBe('<html><body><header>B</header>Hi</body></html>');
    const none = await preview({ template_id: 'preview-welcome', layout_id: null, content: 'Hi {{name}}', variables: { name: 'Z' } });
    expect(none.body.data.content).toBe('Hi Z');
    const chat = await preview({ template_id: 'preview-welcome', channel: 'chat', content: 'Hi {{name}}', variables: { name: 'Z' } });
    expect(chat.body.data).toMatchObject({ channel: 'chat', content: 'Hi Z' });
  });

  it('reports variables a trigger would refuse, and still renders', async () => {
    const res = await preview({ template_id: 'preview-welcome', content: 'Hi {{name}}', variables: { vip: 'yes' } });
    expect(res.status).toBe(200);
    expect(res.body.data.variables_error).toMatch(/name/);
    expect(res.body.data.content).toContain('Hi ');
  });

  it('refuses text that does not compile and payloads it does not know', async () => {
    const broken = await preview({ content: '<p>{{#if a}}open</p>' });
    expect(broken.status).toBe(400);
    expect(broken.body.errors[0].message).toMatch(/does not compile/);
    expect((await preview({ content: 'x', layout: '{{{content}}}', layout_id: 'preview-base' })).status).toBe(400);
    expect((await preview({ content: 'x', channel: 'fax' })).status).toBe(400);
    expect((await preview({ content: 'x', send: true })).status).toBe(400);
    expect((await preview({ subject: 'only a subject' })).status).toBe(400);
    expect((await preview({ template_id: 'no-such-template', content: 'x' })).status).toBe(404);
  });

  it('answers those who may read templates (and the layouts they use), within their row filter', async () => {
    const body = { template_id: 'preview-welcome', content: 'Hi {{name}}', variables: { name: 'E', brand: 'Q' } };
    const editor = await preview(body, 'preview-editor');
    expect(editor.status, JSON.stringify(editor.body)).toBe(200);
    expect(editor.body.data.content).toBe('<html><body><header>Q</header>Hi E</body></html>');
    // The template is outside the editor's row filter: as if it did not exist.
    expect((await preview({ template_id: 'preview-hidden', content: 'x' }, 'preview-editor')).status).toBe(403);
    // Templates but not layouts: the template's layout cannot be read.
    expect((await preview(body, 'preview-templates-only')).status).toBe(403);
    expect((await preview({ content: 'plain {{a}}', variables: { a: 1 } }, 'preview-templates-only')).body.data.content).toBe('plain 1');
    expect((await preview(body, 'preview-nobody')).status).toBe(403);
    expect((await preview(body, null)).status).toBe(401);
    expect((await preview(body, shareToken)).status).toBe(403);
  });
});

describe('POST /notify/preview/frame', () => {
  const SAME = { 'sec-fetch-site': 'same-origin' };
  const form = (body: unknown) => `payload=${encodeURIComponent(JSON.stringify(body))}`;
  const frame = (payload: string, headers: Record<string, string>, token?: string | null) => t.req('POST', '/notify/preview/frame', payload,
    { headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, ...(token === undefined ? {} : { token }) });

  it('answers the rendered email as a sandboxed document of its own', async () => {
    const res = await frame(form({ template_id: 'preview-welcome', content: CONTENT, variables: { name: 'Ann', brand: 'Acme' } }), SAME);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/(^|; )sandbox(;|$)/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toMatch(/script-src/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toBe('<html><body><header>Acme</header><p style="color:#333">Hello Ann</p></body></html>');
  });

  it('takes a multipart form too, and shows chat text escaped', async () => {
    const data = new FormData();
    data.set('payload', JSON.stringify({ channel: 'chat', content: '<b>{{x}}</b>\nline', variables: { x: 'y' } }));
    const res = await t.app.request('/notify/preview/frame', { method: 'POST', body: data, headers: { ...SAME, authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('&#60;b&#62;y&#60;/b&#62;\nline');
    expect(html).not.toContain('<b>');
  });

  it('renders an error in words, in the frame', async () => {
    const res = await frame(form({ content: '{{#each}}' }), SAME);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(res.body).toMatch(/This message cannot be shown: .*does not compile/);
  });

  it('is only for a form posted from this origin, by those who may preview', async () => {
    const body = form({ content: 'x' });
    expect((await frame(body, {})).status).toBe(403);
    expect((await frame(body, { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await frame(body, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await t.req('POST', '/notify/preview/frame', { payload: '{}' }, { headers: SAME })).status).toBe(400);
    expect((await frame('other=1', SAME)).status).toBe(400);
    expect((await frame(body, SAME, 'preview-nobody')).status).toBe(403);
    expect((await frame(body, SAME, null)).status).toBe(401);
    expect((await frame(body, SAME, shareToken)).status).toBe(403);
    expect((await frame(body, SAME, 'preview-editor')).status).toBe(200);
  });
});
