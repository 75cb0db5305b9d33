/** GET /server/specs/oas through the real app: access, content rules (system paths, /items paths, singletons,
 * read-only collections, hidden tables), field type mapping, and rebuilds after schema changes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  await createContentModel(t.services);
  await createPrincipal(t.services, { token: 'oas-app-user', appAccess: true, permissions: [{ collection: 'posts', action: 'read' }] });
});
afterAll(async () => t?.close());

async function spec(): Promise<any> {
  const res = await t.req('GET', '/server/specs/oas');
  expect(res.status).toBe(200);
  return res.body;
}

const methods = (item: Record<string, unknown> | undefined) => Object.keys(item ?? {}).filter((k) => k !== 'parameters').sort();

describe('access', () => {
  it('admin gets an OpenAPI 3.0 JSON document', async () => {
    const res = await t.req('GET', '/server/specs/oas');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.openapi).toMatch(/^3\.0\.\d$/);
    expect(res.body.info.version).toBe(pkg.version);
    expect(res.body.servers).toEqual([{ url: t.services.config.publicUrl }]);
  });

  it('a non-admin gets 403 FORBIDDEN; anonymous 403; a bad token 401', async () => {
    const user = await t.req('GET', '/server/specs/oas', undefined, { token: 'oas-app-user' });
    expect(user.status).toBe(403);
    expect(user.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const anonymous = await t.req('GET', '/server/specs/oas', undefined, { token: null });
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const bad = await t.req('GET', '/server/specs/oas', undefined, { token: 'no-such-token' });
    expect(bad.status).toBe(401);
  });

  it('the title is settings.project_name', async () => {
    expect((await t.req('PATCH', '/settings', { project_name: 'Acme Content' })).status).toBeLessThan(300);
    expect((await spec()).info.title).toBe('Acme Content');
  });
});

describe('content rules', () => {
  it('system collections have dedicated paths; user collections live under /items', async () => {
    const doc = await spec();
    for (const p of ['/users', '/users/{id}', '/users/me', '/roles', '/policies', '/permissions', '/access', '/files', '/files/{id}',
      '/folders', '/activity', '/revisions', '/notifications', '/comments', '/translations', '/shares', '/presets', '/relations',
      '/collections', '/fields', '/settings', '/versions', '/assets/{id}', '/tus', '/auth/login', '/server/info', '/server/specs/oas']) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(methods(doc.paths['/items/posts'])).toEqual(['delete', 'get', 'patch', 'post']);
    expect(methods(doc.paths['/items/posts/{id}'])).toEqual(['delete', 'get', 'patch']);
    expect(doc.paths['/items/posts'].get.operationId).toBe('readItemsPosts');
    expect(doc.paths['/items/posts'].post.operationId).toBe('createItemsPosts');
    expect(doc.paths['/items/posts'].get.tags).toEqual(['Items: posts']);
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toContain('Items: posts');
    // System collections are not repeated under /items.
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/items/svc_'))).toEqual([]);
  });

  it('a singleton has only GET and PATCH', async () => {
    const doc = await spec();
    expect(methods(doc.paths['/items/home'])).toEqual(['get', 'patch']);
    expect(doc.paths['/items/home/{id}']).toBeUndefined();
    expect(doc.paths['/items/home/search']).toBeUndefined();
    expect(methods(doc.paths['/settings'])).toEqual(['get', 'patch']);
  });

  it('/activity and /revisions have only list and single reads', async () => {
    const doc = await spec();
    for (const p of ['/activity', '/activity/{id}', '/revisions', '/revisions/{id}']) expect(methods(doc.paths[p]), p).toEqual(['get']);
    expect(methods(doc.paths['/notifications'])).toEqual(['delete', 'get', 'patch', 'post']);
  });

  it('session tables are not described', async () => {
    const doc = await spec();
    expect(Object.keys(doc.paths).filter((p) => /session/i.test(p))).toEqual([]);
    expect(Object.keys(doc.components.schemas).filter((s) => /session/i.test(s))).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('svc_sessions');
  });

  it('operationIds are unique; every path parameter is declared', async () => {
    const doc = await spec();
    const ids: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const m of methods(item)) {
        ids.push(item[m].operationId);
        const declared = [...(item.parameters ?? []), ...(item[m].parameters ?? [])].filter((p: any) => p.in === 'path').map((p: any) => p.name);
        const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]);
        expect(declared.sort(), `${m} ${path}`).toEqual(inPath.sort());
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    // No two templated paths of the same shape (OpenAPI: they would be identical).
    const shapes = Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}'));
    expect(shapes.filter((s, i) => shapes.indexOf(s) !== i)).toEqual([]);
  });

  it('documents every route the app serves (CORS preflights aside)', async () => {
    const { createBaseApp } = await import('../../functions/http/base-app.ts');
    const { pathShape } = await import('../../core/openapi/served.ts');
    const doc = await spec();
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const generic = path.startsWith('/items/') ? path.replace(/^\/items\/[^/]+/, '/items/{collection}') : path;
      for (const m of methods(item)) documented.add(`${m === 'head' ? 'GET' : m.toUpperCase()} ${pathShape(generic)}`);
    }
    const middleware = new Set(createBaseApp(t.services).routes.map((r) => `${r.method} ${pathShape(r.path)}`));
    const undocumented = t.app.routes
      .map((r) => `${r.method} ${pathShape(r.path)}`)
      // /admin is the Studio's pages and files, not an API route.
      .filter((k) => !k.startsWith('ALL ') && !k.startsWith('OPTIONS ') && !k.startsWith('GET /admin') && !middleware.has(k) && !documented.has(k));
    // A new route needs its description in core/openapi/system/*.
    expect([...new Set(undocumented)]).toEqual([]);
  });

  it('documents only routes the app serves, and every described route is routed', async () => {
    // The routes of the app without the middleware the base app registers for every request.
    const { createBaseApp } = await import('../../functions/http/base-app.ts');
    const { pathShape } = await import('../../core/openapi/served.ts');
    const count = (routes: { method: string; path: string }[]) => {
      const m = new Map<string, number>();
      for (const r of routes) m.set(`${r.method} ${pathShape(r.path)}`, (m.get(`${r.method} ${pathShape(r.path)}`) ?? 0) + 1);
      return m;
    };
    const all = count(t.app.routes);
    const base = count(createBaseApp(t.services).routes);
    const handled = (key: string) => (all.get(key) ?? 0) > (base.get(key) ?? 0);
    const doc = await spec();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const m of methods(item)) {
        const method = m === 'head' ? 'GET' : m.toUpperCase();
        expect(handled(`${method} ${pathShape(path.startsWith('/items/') ? path.replace(/^\/items\/[^/]+/, '/items/:c') : path)}`), `${m} ${path}`).toBe(true);
      }
    }
  });
});

describe('item schemas from fields', () => {
  it('maps every field type to its wire shape', async () => {
    const { components: { schemas } } = await spec();
    const posts = schemas.ItemsPosts.properties;
    expect(posts.id).toMatchObject({ type: 'integer', format: 'int32', readOnly: true });
    expect(posts.title).toMatchObject({ type: 'string', maxLength: 255, nullable: true });
    expect(posts.views).toMatchObject({ type: 'integer', format: 'int32' });
    expect(posts.big).toMatchObject({ type: 'string', pattern: '^-?[0-9]+$' });
    expect(posts.rating).toMatchObject({ type: 'string' });
    expect(posts.labels).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(posts.meta.type).toBeUndefined();
    expect(posts.uid).toMatchObject({ type: 'string', format: 'uuid' });
    expect(posts.published_on).toMatchObject({ type: 'string', format: 'date-time' });
    expect(posts.publish_date).toMatchObject({ type: 'string', format: 'date' });
    expect(posts.publish_time).toMatchObject({ type: 'string' });
    expect(posts.publish_time.format).toBeUndefined();
    expect(posts.local_dt).toMatchObject({ type: 'string' });
    expect(posts.local_dt.format).toBeUndefined();
    expect(schemas.ItemsAuthors.properties.score).toMatchObject({ type: 'number' });
    expect(schemas.ItemsAuthors.properties.active).toMatchObject({ type: 'boolean' });
    expect(schemas.ItemsAuthors.properties.secret).toMatchObject({ type: 'string', writeOnly: true });
    expect(schemas.ItemsAuthors.properties.name.nullable).toBeUndefined();
  });

  it('describes relations as key or related item', async () => {
    const { components: { schemas } } = await spec();
    expect(schemas.ItemsPosts.properties.author).toEqual({
      nullable: true, oneOf: [{ type: 'integer', format: 'int32' }, { $ref: '#/components/schemas/ItemsAuthors' }],
    });
    expect(schemas.ItemsAuthors.properties.posts).toEqual({
      type: 'array', items: { oneOf: [{ type: 'integer', format: 'int32' }, { $ref: '#/components/schemas/ItemsPosts' }] },
    });
    expect(schemas.ItemsPosts.properties.comments.items.oneOf[0]).toEqual({ type: 'string', format: 'uuid' });
    expect(schemas.ItemsPosts.properties.tags.items.oneOf[1]).toEqual({ $ref: '#/components/schemas/ItemsPostsTags' });
    expect(schemas.ItemsPagesBlocks.properties.item.oneOf).toEqual([
      { type: 'string' }, { $ref: '#/components/schemas/ItemsBlockHero' }, { $ref: '#/components/schemas/ItemsBlockText' },
    ]);
    // System relations point at system components.
    expect(schemas.Users.properties.role.oneOf[1]).toEqual({ $ref: '#/components/schemas/Roles' });
  });

  it('the path parameter of a collection has the type of its primary key', async () => {
    const doc = await spec();
    const param = (p: string) => doc.paths[p].parameters.find((x: any) => x.in === 'path').schema;
    expect(param('/items/posts/{id}')).toEqual({ type: 'integer', format: 'int32' });
    expect(param('/items/tags/{id}')).toMatchObject({ type: 'string', maxLength: 64 });
  });
});

describe('schema changes', () => {
  it('a collection created through POST /collections appears with its fields; fields added and deleted follow', async () => {
    expect((await spec()).paths['/items/oas_books']).toBeUndefined();
    const created = await t.req('POST', '/collections', {
      collection: 'oas_books', schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'title', type: 'string', schema: { is_nullable: false } },
        { field: 'price', type: 'decimal' },
      ],
    });
    expect(created.status).toBe(200);
    let doc = await spec();
    expect(methods(doc.paths['/items/oas_books'])).toEqual(['delete', 'get', 'patch', 'post']);
    expect(doc.paths['/items/oas_books/{id}']).toBeDefined();
    expect(Object.keys(doc.components.schemas.ItemsOasBooks.properties).sort()).toEqual(['id', 'price', 'title']);
    expect(doc.components.schemas.ItemsOasBooks.properties.title.nullable).toBeUndefined();

    expect((await t.req('POST', '/fields/oas_books', { field: 'isbn', type: 'string' })).status).toBe(200);
    doc = await spec();
    expect(doc.components.schemas.ItemsOasBooks.properties.isbn).toMatchObject({ type: 'string', nullable: true });

    expect((await t.req('DELETE', '/fields/oas_books/price')).status).toBe(204);
    doc = await spec();
    expect(doc.components.schemas.ItemsOasBooks.properties.price).toBeUndefined();
    expect(doc.components.schemas.ItemsOasBooks.properties.isbn).toBeDefined();

    expect((await t.req('DELETE', '/collections/oas_books')).status).toBe(204);
    doc = await spec();
    expect(doc.paths['/items/oas_books']).toBeUndefined();
    expect(doc.components.schemas.ItemsOasBooks).toBeUndefined();
  });

  it('a singleton created through POST /collections has only GET and PATCH', async () => {
    const created = await t.req('POST', '/collections', {
      collection: 'oas_site', schema: {},
      meta: { singleton: true },
      fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }, { field: 'tagline', type: 'text' }],
    });
    expect(created.status).toBe(200);
    const doc = await spec();
    expect(methods(doc.paths['/items/oas_site'])).toEqual(['get', 'patch']);
    expect(doc.paths['/items/oas_site/{id}']).toBeUndefined();
    expect(doc.components.schemas.ItemsOasSite.properties.tagline).toMatchObject({ type: 'string' });
  });
});
