/** A user's own saved views (svc_presets): app users change and remove their own presets without an explicit
 * permission, as the Studio does for every list view; nobody else's, not by handing one to someone else or making
 * it role-wide; and not without the app panel, as the public or through a share token. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
let owner: string;
let other: string;
let ownPreset: number;
let othersPreset: number;
let shareToken: string;

const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

async function presetOf(user: string, bookmark: string | null = null): Promise<number> {
  const [row] = await run<{ id: number }>(t.services.database.db, `insert into svc_presets (collection, "user", bookmark, layout, search)
    values ('posts', $1, $2, 'tabular', 'first') returning id`, [user, bookmark]);
  return row.id;
}

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services, { seed: true });
  ({ user: owner } = await createPrincipal(t.services, { token: 'preset-owner', permissions: [{ collection: 'posts', action: 'read' }], appAccess: true }));
  ({ user: other } = await createPrincipal(t.services, { token: 'preset-other', permissions: [{ collection: 'posts', action: 'read' }], appAccess: true }));
  await createPrincipal(t.services, { token: 'preset-api-only', permissions: [{ collection: 'posts', action: 'read' }] });
  ownPreset = await presetOf(owner);
  othersPreset = await presetOf(other);
  const { role } = await createPrincipal(t.services, { token: 'preset-share-role', permissions: [{ collection: 'posts', action: 'read' }], appAccess: true });
  const share = randomUUID();
  await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, role]);
  const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
  shareToken = auth.body.data.access_token;
});
afterAll(async () => { await t.close(); });

describe('own presets', () => {
  it('the owner updates their own preset, one by key and several by keys', async () => {
    const one = await t.req('PATCH', `/presets/${ownPreset}`, { search: 'second', layout_query: { tabular: { sort: ['-id'] } } }, { token: 'preset-owner' });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data).toMatchObject({ id: ownPreset, search: 'second', user: owner });
    const bookmark = await presetOf(owner, 'Drafts');
    const many = await t.req('PATCH', '/presets', { keys: [ownPreset, bookmark], data: { search: 'third' } }, { token: 'preset-owner' });
    expect(many.status, JSON.stringify(many.body)).toBe(200);
    const rows = await run<{ search: string }>(t.services.database.db, 'select search from svc_presets where id = any($1::int[])', [[ownPreset, bookmark]]);
    expect(rows.map((r) => r.search)).toEqual(['third', 'third']);
  });

  it.each([
    ['another user', 'preset-other'],
    ['a user without the app panel', 'preset-api-only'],
  ])("%s may not change or remove the owner's preset", async (_who, token) => {
    expect((await t.req('PATCH', `/presets/${ownPreset}`, { search: 'taken' }, { token })).status).toBe(403);
    expect((await t.req('PATCH', '/presets', { keys: [ownPreset], data: { search: 'taken' } }, { token })).status).toBe(403);
    expect((await t.req('DELETE', `/presets/${ownPreset}`, undefined, { token })).status).toBe(403);
  });

  it('the public and a share token may not', async () => {
    for (const token of [null, shareToken]) {
      const res = await t.req('PATCH', `/presets/${ownPreset}`, { search: 'taken' }, { token });
      expect([401, 403]).toContain(res.status);
      expect((await t.req('DELETE', `/presets/${ownPreset}`, undefined, { token })).status).toBeGreaterThanOrEqual(401);
    }
    const [row] = await run<{ search: string }>(t.services.database.db, 'select search from svc_presets where id = $1', [ownPreset]);
    expect(row.search).toBe('third');
  });

  it('a preset is not handed to another user, made role-wide or global, nor mixed with another user\'s', async () => {
    for (const data of [{ user: other }, { user: null }, { role: randomUUID() }]) {
      const res = await t.req('PATCH', `/presets/${ownPreset}`, data, { token: 'preset-owner' });
      expect(res.status, JSON.stringify(data)).toBe(403);
      expect(code(res)).toBe('FORBIDDEN');
    }
    expect((await t.req('PATCH', '/presets', { keys: [ownPreset, othersPreset], data: { search: 'both' } }, { token: 'preset-owner' })).status).toBe(403);
    expect((await t.req('DELETE', '/presets', [ownPreset, othersPreset], { token: 'preset-owner' })).status).toBe(403);
    const [row] = await run<{ user: string; search: string }>(t.services.database.db, 'select "user", search from svc_presets where id = $1', [othersPreset]);
    expect(row).toEqual({ user: other, search: 'first' });
  });

  it('the owner removes their own preset; the admin may change anyone\'s', async () => {
    expect((await t.req('PATCH', `/presets/${othersPreset}`, { search: 'by admin' })).status).toBe(200);
    expect((await t.req('DELETE', `/presets/${ownPreset}`, undefined, { token: 'preset-owner' })).status).toBe(204);
    const rows = await run(t.services.database.db, 'select 1 from svc_presets where id = $1', [ownPreset]);
    expect(rows).toHaveLength(0);
  });
});
