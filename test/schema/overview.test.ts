import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { relationOf } from '../../core/schema/relations.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
});
afterAll(async () => { await t.close(); });

describe('schema overview', () => {
  it('reads field types from the catalogue and specials', async () => {
    const s = await t.services.schema.get();
    const posts = s.collections.posts;
    expect(posts.primary).toBe('id');
    expect(posts.fields.id).toMatchObject({ type: 'integer', autoIncrement: true, isPrimaryKey: true });
    expect(posts.fields.title).toMatchObject({ type: 'string', maxLength: 255 });
    expect(posts.fields.labels.type).toBe('csv');
    expect(posts.fields.published_on.type).toBe('timestamp');
    expect(posts.fields.local_dt.type).toBe('dateTime');
    expect(posts.fields.rating).toMatchObject({ type: 'decimal', numericPrecision: 10, numericScale: 2 });
    expect(posts.fields.big.type).toBe('bigInteger');
    expect(posts.fields.status.defaultValue).toBe('draft');
    expect(posts.fields.comments).toMatchObject({ type: 'alias', alias: true });
    expect(s.collections.authors.fields.email.unique).toBe(true);
    expect(s.collections.authors.fields.secret.type).toBe('hash');
    expect(s.collections.home.singleton).toBe(true);
    expect(s.collections.svc_users.system).toBe(true);
  });

  it('resolves every relation kind', async () => {
    const s = await t.services.schema.get();
    expect(relationOf(s, 'posts', 'author')).toMatchObject({ kind: 'm2o', related: 'authors' });
    expect(relationOf(s, 'authors', 'posts')).toMatchObject({ kind: 'o2m', related: 'posts' });
    expect(relationOf(s, 'posts', 'tags')).toMatchObject({ kind: 'o2m', related: 'posts_tags' });
    expect(relationOf(s, 'posts_tags', 'tags_id')).toMatchObject({ kind: 'm2o', related: 'tags' });
    expect(relationOf(s, 'pages_blocks', 'item')).toMatchObject({ kind: 'a2o', allowed: ['block_hero', 'block_text'], collectionField: 'collection' });
    expect(relationOf(s, 'svc_users', 'role')).toMatchObject({ kind: 'm2o', related: 'svc_roles' });
  });
});
