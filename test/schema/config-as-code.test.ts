/** Configuration as code: GET /schema/snapshot?include=... carries configuration sections beside the schema; a diff
 * and an apply cover the sections a posted snapshot holds. A configured source goes to an empty app and comes back
 * equal (a second diff is empty), secrets never leave the database, a section left out is untouched, deletions need
 * allow_destructive, and a failing configuration step rolls the schema steps back with it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { buildConfig, instanceBasics, ok, oidcValue, s3Value, SECRETS } from './config-as-code-model.ts';

let source: TestApp;
let target: TestApp;
let snapshot: any;

async function snapshotOf(t: TestApp, include = 'all'): Promise<any> {
  const res = await t.req('GET', `/schema/snapshot?include=${include}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function diffTo(t: TestApp, snap: unknown): Promise<{ status: number; body: any }> {
  return t.req('POST', '/schema/diff', snap);
}

async function applySnapshot(t: TestApp, snap: unknown, query = ''): Promise<{ status: number; body: any }> {
  const d = await diffTo(t, snap);
  expect(d.status, JSON.stringify(d.body)).toBe(200);
  return t.req('POST', `/schema/apply${query}`, { hash: d.body.data.hash, diff: d.body.data.diff });
}

beforeAll(async () => {
  source = await createTestApp();
  await buildConfig(source);
  snapshot = await snapshotOf(source);
  target = await createTestApp();
  await instanceBasics(target);
  // Providers with secrets exist on the target (a snapshot can't create them): apply changes their other settings.
  await ok(target, 'POST', '/system/storage-providers', { name: 's3', value: s3Value({ region: 'us-east-1' }) });
  await ok(target, 'POST', '/system/auth-providers', { name: 'corp', value: oidcValue({ label: 'Old label' }) });
}, 120_000);
afterAll(async () => {
  await source?.close();
  await target?.close();
});

describe('configuration snapshot', () => {
  it('holds only the sections asked for, without ids', async () => {
    const plain = (await source.req('GET', '/schema/snapshot')).body.data;
    expect(plain).not.toHaveProperty('config');
    const some = await snapshotOf(source, 'roles,policies');
    expect(Object.keys(some.config)).toEqual(['roles', 'policies']);
    expect(snapshot.config.roles.find((r: any) => r.name === 'Junior Editors')).toMatchObject({ parent: 'Editors', enforce_tfa: true });
    expect(snapshot.config.roles[0]).not.toHaveProperty('id');
    expect(snapshot.config.access).toEqual(expect.arrayContaining([
      { policy: 'Editing', role: 'Editors', user: null }, { policy: 'Editing', role: null, user: 'writer@example.com' },
    ]));
    expect(snapshot.config.permissions.find((p: any) => p.policy === 'Editing' && p.action === 'read'))
      .toEqual({ policy: 'Editing', collection: 'articles', action: 'read', fields: ['id', 'title'], permissions: { status: { _eq: 'published' } }, validation: null, presets: null });
    expect(snapshot.config.policies.find((p: any) => p.name === 'Office')).toEqual({
      name: 'Office', icon: 'badge', description: null, ip_access: ['10.0.0.0/8', '2001:db8::/32'], enforce_tfa: true, admin_access: false, app_access: false,
    });
    expect(snapshot.config.app_permissions).toContainEqual({ policy: 'Editing', module: 'workflow', action: 'view' });
    expect(snapshot.config.settings).toMatchObject({ project_name: 'Config Source', public_registration_role: 'Editors', auth_login_attempts: 7 });
    expect(snapshot.config.settings).not.toHaveProperty('mapbox_key');
    expect(snapshot.config.settings).not.toHaveProperty('project_logo');
    expect(snapshot.config.asset_presets).toEqual([{ key: 'thumb', fit: 'cover', width: 200, height: 200, quality: 80 }]);
    expect(snapshot.config.presets.map((p: any) => [p.bookmark, p.role, p.user])).toEqual([[null, null, null], ['Mine', null, 'writer@example.com'], ['Published', 'Editors', null]]);
    expect(snapshot.config.storage_providers).toEqual([{ name: 's3', value: { driver: 'objectstore', bucket: 'media', region: 'eu-west-1' }, secrets: ['accessKey', 'secretKey'] }]);
    expect(snapshot.config.auth_providers[0]).toMatchObject({ name: 'corp', secrets: ['clientSecret'], value: { driver: 'openid', clientId: 'cid' } });
    expect(snapshot.config.notify_contents).toEqual([expect.objectContaining({ template_id: 'welcome', provider: 'Chat', locale: 'default', subject: 'Hi' })]);
    const wf = snapshot.config.workflows[0];
    expect(wf).toMatchObject({ name: 'Review', collection: 'articles', active: true });
    expect(wf.steps.find((s: any) => s.key === 'approve')).toMatchObject({ assign_type: 'role', assign_value: 'Editors' });
    expect(wf.steps.find((s: any) => s.key === 'tell').action_config.recipients).toEqual(['writer@example.com']);
    expect(wf.transitions).toContainEqual({ from: 'approve', to: 'end', trigger: 'reject', condition: null });
  });

  it('never holds a secret, in JSON or YAML', async () => {
    const json = JSON.stringify(snapshot);
    const yaml = (await source.req('GET', '/schema/snapshot?include=all&export=yaml')).body as string;
    for (const text of [json, yaml, toYaml(snapshot)]) {
      for (const secret of [...Object.values(SECRETS), ADMIN_TOKEN]) expect(text).not.toContain(secret);
      expect(text).not.toContain('enc:v1:');
      expect(text).not.toContain('********');
    }
  });

  it('is refused to everyone but admins, whatever it asks for', async () => {
    for (const include of ['all', 'nope']) {
      expect((await source.req('GET', `/schema/snapshot?include=${include}`, undefined, { token: SECRETS.token })).status).toBe(403);
      expect((await source.req('GET', `/schema/snapshot?include=${include}`, undefined, { token: null })).status).toBeGreaterThanOrEqual(401);
    }
  });

  it('refuses an unknown section', async () => {
    const res = await source.req('GET', '/schema/snapshot?include=roles,nope');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/unknown sections \(nope\)/);
  });
});

describe('configuration apply', () => {
  it('builds the same configuration on an empty app, and a second diff is empty', async () => {
    const applied = await applySnapshot(target, snapshot);
    expect(applied.status, JSON.stringify(applied.body)).toBe(204);
    const after = await snapshotOf(target);
    expect(after.config).toEqual(snapshot.config);
    expect((await diffTo(target, snapshot)).status).toBe(204);
    // Written through the owners' services: recorded in activity like any admin write.
    const activity = await ok(target, 'GET', '/activity?filter[collection][_eq]=svc_roles&filter[action][_eq]=create&fields=collection');
    expect(activity.length).toBeGreaterThanOrEqual(2);
    // Secrets stored on the target were kept.
    const s3 = await ok(target, 'GET', '/system/storage-providers/s3');
    expect(s3.value).toMatchObject({ region: 'eu-west-1', accessKey: '********', secretKey: '********' });
    const corp = await ok(target, 'GET', '/system/auth-providers/corp');
    expect(corp.value).toMatchObject({ label: 'Corp', clientSecret: '********' });
    // The role and policy work: the writer reads published articles only through the applied permission.
    const read = await target.req('GET', '/items/articles', undefined, { token: SECRETS.token });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
  });

  it('changes nothing when applied twice (the diff is empty, apply of a stale diff is 409)', async () => {
    const d = await diffTo(source, snapshot);
    expect(d.status).toBe(204);
    const some = structuredClone(snapshot);
    some.config.roles.find((r: any) => r.name === 'Editors').description = 'Changed';
    const diff = (await diffTo(target, some)).body.data;
    expect(diff.diff.config.roles).toEqual([{ key: { name: 'Editors' }, diff: [{ kind: 'E', path: ['description'], lhs: 'Write articles', rhs: 'Changed' }] }]);
    // The configuration moved on since the diff: its hash no longer matches.
    const roles = await ok(target, 'GET', '/roles?filter[name][_eq]=Editors&fields=id');
    await ok(target, 'PATCH', `/roles/${roles[0].id}`, { icon: 'star' });
    const stale = await target.req('POST', '/schema/apply', { hash: diff.hash, diff: diff.diff });
    expect(stale.status).toBe(409);
    await ok(target, 'PATCH', `/roles/${roles[0].id}`, { icon: 'edit' });
  });

  it('changes rows in place: every section, the graph of a workflow included, and keeps stored secrets', async () => {
    const now = await snapshotOf(target);
    const want = structuredClone(now);
    const c = want.config;
    c.roles.find((r: any) => r.name === 'Editors').description = 'Edited';
    c.policies.find((p: any) => p.name === 'Office').ip_access = ['192.168.0.0/16'];
    Object.assign(c.permissions.find((p: any) => p.policy === 'Editing' && p.action === 'read'), { fields: ['id', 'title', 'status'], permissions: { status: { _in: ['published', 'archived'] } } });
    c.settings.public_note = 'Changed';
    c.asset_presets = [{ key: 'hero', fit: 'inside', width: 1200 }, { key: 'thumb', fit: 'cover', width: 300, height: 200, quality: 80 }];
    c.presets.find((p: any) => p.bookmark === 'Published').layout = 'cards';
    c.storage_providers[0].value.region = 'eu-central-1';
    c.auth_providers[0].value.label = 'Corp SSO';
    c.notify_layouts[0].content = '<main>{{{content}}}</main>';
    c.notify_contents[0].subject = 'Hello';
    const wf = c.workflows[0];
    Object.assign(wf.steps.find((s: any) => s.key === 'approve'), { approval_mode: 'any', timeout_minutes: 120 });
    wf.steps.push({ ...wf.steps.find((s: any) => s.key === 'end'), key: 'archive', name: 'archive', sort_order: 9 });
    wf.steps.sort((a: any, b: any) => (a.key < b.key ? -1 : 1));
    wf.transitions = wf.transitions.filter((t: any) => t.trigger !== 'reject');
    wf.transitions.push({ from: 'approve', to: 'archive', trigger: 'reject', condition: null });
    wf.transitions.sort((a: any, b: any) => (`${a.from}\u0000${a.to}\u0000${a.trigger}` < `${b.from}\u0000${b.to}\u0000${b.trigger}` ? -1 : 1));
    const d = await diffTo(target, want);
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    expect(d.body.data.destructive).toEqual([]);
    const applied = await target.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff });
    expect(applied.status, JSON.stringify(applied.body)).toBe(204);
    expect((await snapshotOf(target)).config).toEqual(want.config);
    expect((await diffTo(target, want)).status).toBe(204);
    expect((await ok(target, 'GET', '/system/storage-providers/s3')).value).toMatchObject({ region: 'eu-central-1', accessKey: '********', secretKey: '********' });
    // Back to the configuration before (the new asset preset goes: a destructive step).
    const back = await applySnapshot(target, now, '?allow_destructive');
    expect(back.status, JSON.stringify(back.body)).toBe(204);
    expect((await snapshotOf(target)).config).toEqual(now.config);
  });

  it('leaves a section out of the posted snapshot untouched', async () => {
    await ok(target, 'POST', '/policies', { name: 'Target only' });
    await ok(target, 'PATCH', '/settings', { project_name: 'Target name' });
    const onlyRoles = { ...snapshot, config: { roles: structuredClone(snapshot.config.roles) } };
    onlyRoles.config.roles.find((r: any) => r.name === 'Editors').icon = 'draw';
    const d = await diffTo(target, onlyRoles);
    expect(d.status).toBe(200);
    expect(Object.keys(d.body.data.diff.config)).toEqual(['roles']);
    expect(d.body.data.destructive).toEqual([]);
    const applied = await target.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff });
    expect(applied.status, JSON.stringify(applied.body)).toBe(204);
    const after = await snapshotOf(target);
    expect(after.config.roles.find((r: any) => r.name === 'Editors').icon).toBe('draw');
    expect(after.config.policies.map((p: any) => p.name)).toContain('Target only');
    expect(after.config.settings.project_name).toBe('Target name');
    // Settings naming some properties manage those only.
    const partial = await diffTo(target, { ...snapshot, config: { settings: { project_name: 'Target name', project_color: '#445566' } } });
    expect(partial.body.data.diff.config.settings).toEqual([{ key: {}, diff: [{ kind: 'E', path: ['project_color'], lhs: '#112233', rhs: '#445566' }] }]);
    expect((await target.req('POST', '/schema/apply', { hash: partial.body.data.hash, diff: partial.body.data.diff })).status).toBe(204);
    expect((await snapshotOf(target, 'settings')).config.settings).toMatchObject({ project_name: 'Target name', project_color: '#445566', public_note: 'Hello' });
  });

  it('deletes a role only with allow_destructive', async () => {
    const now = await snapshotOf(target, 'roles');
    const without = { ...now, config: { roles: now.config.roles.filter((r: any) => r.name !== 'Junior Editors') } };
    const d = await diffTo(target, without);
    expect(d.body.data.destructive).toEqual([expect.objectContaining({ kind: 'config', section: 'roles', key: { name: 'Junior Editors' } })]);
    const body = { hash: d.body.data.hash, diff: d.body.data.diff };
    const refused = await target.req('POST', '/schema/apply', body);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].message).toMatch(/Junior Editors.*allow_destructive/);
    expect((await ok(target, 'GET', '/roles?filter[name][_eq]=Junior Editors')).length).toBe(1);
    const dry = await target.req('POST', '/schema/apply?dry_run', body);
    expect(dry.status).toBe(200);
    expect(dry.body.data.steps).toEqual(['delete roles {"name":"Junior Editors"}']);
    expect((await target.req('POST', '/schema/apply?allow_destructive', body)).status).toBe(204);
    expect((await ok(target, 'GET', '/roles?filter[name][_eq]=Junior Editors')).length).toBe(0);
  });

  it('refuses a new provider whose secret a snapshot cannot carry, and rolls back the schema steps with it', async () => {
    const fresh = await createTestApp();
    try {
      await instanceBasics(fresh);
      const res = await applySnapshot(fresh, snapshot);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(/Storage provider "s3" needs its secret "value.accessKey" and "value.secretKey"/);
      expect(res.body.errors[0].message).toMatch(/Nothing was changed/);
      // The collection the schema steps made before, and the roles, are gone with the transaction.
      expect((await fresh.req('GET', '/collections/articles')).status).not.toBe(200);
      expect((await ok(fresh, 'GET', '/roles?filter[name][_eq]=Editors')).length).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('answers a bad configuration section with a 400 naming it', async () => {
    const bad = await diffTo(target, { ...snapshot, config: { roles: [{ name: 'X', colour: 'red' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toMatch(/config\.roles\[0\] has an unknown property "colour"/);
    const secret = await diffTo(target, { ...snapshot, config: { auth_providers: [{ name: 'x', value: { driver: 'openid', clientSecret: 'oops' } }] } });
    expect(secret.status).toBe(400);
    expect(secret.body.errors[0].message).toMatch(/value\.clientSecret is a secret/);
    const unknown = await diffTo(target, { ...snapshot, config: { flows: [] } });
    expect(unknown.status).toBe(400);
  });
});
