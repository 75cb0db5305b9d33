/** Shared setup of the versions tests: the content model of test/helpers/fixtures.ts (posts: serial keys and a
 * status field; comments: uuid keys, O2M posts.comments) plus `articles` (uuid keys chosen by the client, a
 * status field, a secret field, O2M articles.sections), and principals with app permissions. */
import { run } from '../../core/db/database.ts';
import type { AppPermission } from '../../core/access/app-permissions.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal, type PermissionSpec } from '../helpers/principals.ts';

const ARTICLES = `
create table articles (id uuid primary key, title varchar(255) not null, body text, status varchar(32) default 'draft',
  secret varchar(255), views integer default 0);
create table sections (id uuid primary key, article uuid references articles(id) on delete cascade, heading varchar(255));
insert into svc_collections (collection, singleton, accountability) values ('articles', false, 'all'), ('sections', false, 'all');
insert into svc_fields (collection, field, special) values ('articles', 'sections', 'o2m');
insert into svc_relations (many_collection, many_field, one_collection, one_field) values ('sections', 'article', 'articles', 'sections');
insert into articles (id, title, body, status, secret) values
  ('aaaaaaaa-0000-4000-8000-000000000001', 'Published article', 'Body one', 'published', 'classified');
`;

export const ARTICLE = 'aaaaaaaa-0000-4000-8000-000000000001';

export type Principal = { user: string; role: string; policy: string };

export async function versionsApp(): Promise<TestApp> {
  const t = await createTestApp();
  await createContentModel(t.services);
  await run(t.services.database.db, ARTICLES);
  await t.services.schema.invalidate();
  return t;
}

const all = (collection: string, actions: PermissionSpec['action'][], fields?: string[]): PermissionSpec[] =>
  actions.map((action) => ({ collection, action, ...(fields ? { fields } : {}) }));

/** An app user with item permissions and app permissions. */
export async function principal(t: TestApp, token: string, permissions: PermissionSpec[], app: AppPermission[]): Promise<Principal> {
  const p = await createPrincipal(t.services, { token, permissions, appAccess: true });
  for (const perm of app) {
    const [module, action] = perm.split(':');
    await run(t.services.database.db, 'insert into svc_app_permissions (policy, module, action) values ($1, $2, $3)', [p.policy, module, action]);
  }
  await t.services.schema.invalidate();
  return p;
}

/** Item permissions of an editor: everything on posts, comments, articles and sections. */
export const EDITOR_PERMISSIONS: PermissionSpec[] = [
  ...all('posts', ['create', 'read', 'update']),
  ...all('comments', ['create', 'read', 'update']),
  ...all('articles', ['create', 'read', 'update']),
  ...all('sections', ['create', 'read', 'update']),
];

export const q = <R = any>(t: TestApp, sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
export const code = (res: { body: any }) => res.body?.errors?.[0]?.extensions?.code;
export const reason = (res: { body: any }) => res.body?.errors?.[0]?.extensions?.reason;
