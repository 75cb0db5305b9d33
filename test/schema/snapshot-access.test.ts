/** Who may use /schema (admins only; the snapshot describes every collection, and apply changes them), and an apply
 * through one instance seen at once by a second one on the same database. Matrix: admin; a user whose role reads the
 * collection (owner); a user of another role (other); a user without any permission (none); public; a share token. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { secondInstance, type SecondInstance } from './helpers.ts';

type Who = 'admin' | 'owner' | 'other' | 'none' | 'public' | 'share';
let t: TestApp & { database: any };
let b: SecondInstance;
const tokens: Record<Who, string | null> = { admin: undefined as unknown as string, owner: 'schema-owner', other: 'schema-other', none: 'schema-none', public: null, share: null };

beforeAll(async () => {
  t = await createTestApp();
  b = await secondInstance(t);
  expect((await t.req('POST', '/collections', { collection: 'notes', schema: {}, fields: [
    { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }, { field: 'text', type: 'string' }] })).status).toBe(200);
  const owner = await createPrincipal(t.services, { token: 'schema-owner', appAccess: true, permissions: ['create', 'read', 'update', 'delete', 'share'].map((action) => ({ collection: 'notes', action: action as any })) });
  await createPrincipal(t.services, { token: 'schema-other', appAccess: true, permissions: [{ collection: 'notes', action: 'read', permissions: { text: { _eq: 'nothing' } } }] });
  await createPrincipal(t.services, { token: 'schema-none', permissions: [] });
  const note = (await t.req('POST', '/items/notes', { text: 'hello' })).body.data;
  const share = randomUUID();
  await run(t.services.database.db, "insert into svc_shares (id, collection, item, role) values ($1, 'notes', $2, $3)", [share, String(note), owner.role]);
  const auth = await t.req('POST', '/shares/auth', { share }, { token: null });
  expect(auth.status, JSON.stringify(auth.body)).toBe(200);
  tokens.share = auth.body.data.access_token;
});
afterAll(async () => {
  await b?.close();
  await t?.close();
});

describe('schema as code: who may', () => {
  const WHO: Who[] = ['admin', 'owner', 'other', 'none', 'public', 'share'];
  it.each(WHO)('%s', async (who) => {
    const token = who === 'admin' ? undefined : tokens[who];
    const as = (method: string, path: string, body?: unknown) => t.req(method, path, body, { token });
    const snapshot = await as('GET', '/schema/snapshot');
    const diff = await as('POST', '/schema/diff', { version: 1, collections: [], fields: [], relations: [] });
    const apply = await as('POST', '/schema/apply', { hash: 'x', diff: { collections: [{ collection: 'notes', diff: [{ kind: 'D', lhs: {} }] }] } });
    if (who === 'admin') {
      expect(snapshot.status).toBe(200);
      expect(diff.status).toBe(200);
      expect(apply.status).toBe(409);
    } else {
      for (const res of [snapshot, diff, apply]) {
        expect(res.status).toBe(403);
        expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
      }
    }
    expect((await t.req('GET', '/collections/notes')).status).toBe(200);
  });
});

describe('schema apply across instances', () => {
  it('shows the applied schema at once on the other instance', async () => {
    expect((await b.req('GET', '/fields/notes')).body.data.map((f: any) => f.field)).toEqual(['id', 'text']);
    const snapshot = (await t.req('GET', '/schema/snapshot')).body.data;
    snapshot.fields.push({ collection: 'notes', field: 'pinned', type: 'boolean', meta: { interface: 'boolean' }, schema: { default_value: false } });
    const d = await t.req('POST', '/schema/diff', snapshot);
    expect((await t.req('POST', '/schema/apply', { hash: d.body.data.hash, diff: d.body.data.diff })).status).toBe(204);
    expect((await b.req('GET', '/fields/notes')).body.data.map((f: any) => f.field)).toEqual(['id', 'text', 'pinned']);
    expect((await b.req('GET', '/items/notes?fields=text,pinned')).body.data).toEqual([{ text: 'hello', pinned: false }]);
  });
});
