/** A source app's configuration for the config-as-code tests: roles, policies, access (role and user), permissions
 * with filters, app permissions, settings with asset presets, presets and bookmarks, a storage provider and an auth
 * provider with secrets, a notification layout, template and content, and a workflow with steps and transitions. */
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';

/** Values that must never appear in a snapshot. */
export const SECRETS = {
  clientSecret: 'oidc-client-secret-7c1f',
  accessKey: 'AKIASECRETACCESS9Q',
  secretKey: 'storage-secret-key-5d2e',
  mapboxKey: 'pk.mapbox-secret-token-88',
  password: 'Writer-Pass-Word-41',
  token: 'writer-static-token-6a',
  webhook: 'chat-webhook-secret-19',
};

export async function ok(t: TestApp, method: string, path: string, body?: unknown): Promise<any> {
  const res = await t.req(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body?.data;
}

/** What both apps have in common that a snapshot does not carry: a user and a notification provider. */
export async function instanceBasics(t: TestApp): Promise<void> {
  await ok(t, 'POST', '/users', { email: 'writer@example.com', password: SECRETS.password, token: SECRETS.token, status: 'active' });
  await ok(t, 'POST', '/notify/providers', { name: 'Chat', channel: 'chat', config: { url: 'https://chat.example.com/hook' }, webhook_enabled: true, webhook_secret: SECRETS.webhook });
}

export const oidcValue = (extra: Record<string, unknown> = {}) => ({
  driver: 'openid', clientId: 'cid', clientSecret: SECRETS.clientSecret, issuerUrl: 'https://idp.example', label: 'Corp', ...extra,
});

export const s3Value = (extra: Record<string, unknown> = {}) => ({
  driver: 'objectstore', bucket: 'media', region: 'eu-west-1', accessKey: SECRETS.accessKey, secretKey: SECRETS.secretKey, ...extra,
});

export async function buildConfig(t: TestApp): Promise<void> {
  await ok(t, 'POST', '/collections', {
    collection: 'articles', schema: {},
    fields: [
      { field: 'id', type: 'integer', meta: { hidden: true }, schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'title', type: 'string', meta: null, schema: {} },
      { field: 'status', type: 'string', meta: null, schema: { default_value: 'draft' } },
    ],
  });
  await instanceBasics(t);
  const users = await ok(t, 'GET', '/users?filter[email][_eq]=writer@example.com&fields=id');
  const writer = users[0].id as string;

  const editors = await ok(t, 'POST', '/roles', { name: 'Editors', icon: 'edit', description: 'Write articles', app_access: true });
  await ok(t, 'POST', '/roles', { name: 'Junior Editors', parent: editors.id ?? editors, enforce_tfa: true });
  const editorsId = editors.id ?? editors;
  const policy = await ok(t, 'POST', '/policies', {
    name: 'Editing', icon: 'edit_note', description: 'Edit articles', app_access: true, roles: [editorsId], users: [writer],
  });
  await ok(t, 'POST', '/policies', { name: 'Office', ip_access: ['10.0.0.0/8', '2001:db8::/32'], enforce_tfa: true, roles: [editorsId] });
  const policyId = policy.id ?? policy;
  await ok(t, 'POST', '/permissions', { policy: policyId, collection: 'articles', action: 'read', fields: ['id', 'title'], permissions: { status: { _eq: 'published' } } });
  await ok(t, 'POST', '/permissions', {
    policy: policyId, collection: 'articles', action: 'create', fields: ['*'], validation: { title: { _nnull: true } }, presets: { status: 'draft' },
  });
  await ok(t, 'POST', '/app-permissions', { policy: policyId, permission: 'workflow:view' });

  await ok(t, 'PATCH', '/settings', {
    project_name: 'Config Source', project_color: '#112233', public_note: 'Hello', auth_login_attempts: 7, mapbox_key: SECRETS.mapboxKey,
    public_registration_role: editorsId, storage_asset_presets: [{ key: 'thumb', fit: 'cover', width: 200, height: 200, quality: 80 }],
  });
  await ok(t, 'POST', '/presets', { bookmark: 'Published', collection: 'articles', role: editorsId, layout: 'tabular', filter: { status: { _eq: 'published' } } });
  await ok(t, 'POST', '/presets', { collection: 'articles', layout: 'cards', layout_options: { cards: { size: 4 } } });
  await ok(t, 'POST', '/presets', { bookmark: 'Mine', collection: 'articles', user: writer, search: 'draft' });

  await ok(t, 'POST', '/system/storage-providers', { name: 's3', value: s3Value() });
  await ok(t, 'POST', '/system/auth-providers', { name: 'corp', value: oidcValue() });

  const chat = (await ok(t, 'GET', '/notify/providers?filter[name][_eq]=Chat'))[0];
  await ok(t, 'POST', '/notify/layouts', { id: 'base', name: 'Base', content: '<div>{{{content}}}</div>' });
  await ok(t, 'POST', '/notify/templates', { id: 'welcome', name: 'Welcome', channels: ['chat'], layout_id: 'base', status: 'published' });
  await ok(t, 'POST', '/notify/templates/welcome/contents', { provider_id: chat.id, subject: 'Hi', content: 'Hello {{name}}' });

  const wf = await ok(t, 'POST', '/workflows', { name: 'Review', collection: 'articles', trigger_filter: { status: { _eq: 'review' } } });
  const steps: Record<string, string> = {};
  for (const [i, s] of [
    { key: 'start', type: 'start' },
    { key: 'approve', type: 'approval', assign_type: 'role', assign_value: editorsId, approval_mode: 'all', timeout_minutes: 60, timeout_action: 'notify' },
    { key: 'tell', type: 'action', action_type: 'send_notification', action_config: { subject: 'Approved', message: 'Done', recipients: [writer] } },
    { key: 'end', type: 'end' },
  ].entries()) {
    steps[s.key] = (await ok(t, 'POST', `/workflows/${wf.id}/steps`, { name: s.key, sort_order: i, ...s })).id;
  }
  for (const [from, to, trigger] of [['start', 'approve', 'always'], ['approve', 'tell', 'approve'], ['approve', 'end', 'reject'], ['tell', 'end', 'always']]) {
    await ok(t, 'POST', `/workflows/${wf.id}/transitions`, { from_step_id: steps[from], to_step_id: steps[to], trigger });
  }
  await ok(t, 'POST', `/workflows/${wf.id}/activate`);
}
