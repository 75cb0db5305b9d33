/** The project's public files (settings: project_logo, public_foreground, public_background, public_favicon) are
 * served by /assets to every caller, as the sign-in page needs before anyone signs in, and cached publicly; any
 * other file keeps its permissions, and a file stops being public when the settings stop naming it. The matrix:
 * the uploader (admin), another user without file permissions (with and without app access), anonymous, and a share
 * token for an unrelated item. */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { addFile, assetApp, get, type AssetTestApp } from './helpers.ts';

let t: AssetTestApp;
let logo: string;
let background: string;
let other: string;
let shareToken: string;

beforeAll(async () => {
  t = await assetApp();
  await createContentModel(t.services);
  const bytes = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2a6' } }).png().toBuffer();
  [logo, background, other] = (await Promise.all([0, 1, 2].map(() => addFile(t, { bytes, type: 'image/png', width: 40, height: 30 })))).map((f) => f.id);
  await createPrincipal(t.services, { token: 'pf-app', appAccess: true, permissions: [] });
  const plain = await createPrincipal(t.services, { token: 'pf-plain', permissions: [{ collection: 'posts', action: 'read' }] });
  const share = randomUUID();
  await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'posts', '1', $2)", [share, plain.role]);
  shareToken = (await t.req('POST', '/shares/auth', { share }, { token: null })).body.data.access_token;
  expect((await t.req('PATCH', '/settings', { project_logo: logo, public_background: background })).status).toBe(200);
});
afterAll(async () => t?.dispose());

const CALLERS: [string, string | null | undefined][] = [['admin', undefined], ['app user', 'pf-app'], ['plain user', 'pf-plain'], ['anonymous', null], ['share', 'share']];

describe('public project files', () => {
  it.each(CALLERS)('%s: the logo and the background are served, publicly cacheable, transformed too; another file is not', async (_who, token) => {
    const as = token === 'share' ? shareToken : token;
    for (const id of [logo, background]) {
      const res = await get(t, `/assets/${id}`, { token: as });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      expect((await get(t, `/assets/${id}?width=20&format=webp`, { token: as })).status).toBe(200);
    }
    expect((await get(t, `/assets/${other}`, { token: as })).status).toBe(token === undefined ? 200 : 403);
    // The row itself stays behind its permissions: only the bytes are public.
    if (token !== undefined) expect([401, 403]).toContain((await t.req('GET', `/files/${logo}`, undefined, { token: as })).status);
  });

  it('a file is public only while the settings name it', async () => {
    expect((await t.req('PATCH', '/settings', { public_background: null })).status).toBe(200);
    expect((await get(t, `/assets/${background}`, { token: null })).status).toBe(403);
    expect((await get(t, `/assets/${logo}`, { token: null })).status).toBe(200);
    expect((await get(t, `/assets/${background}`)).headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
  });
});
