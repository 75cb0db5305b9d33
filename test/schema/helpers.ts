/** Helpers for the schema endpoint tests: catalogue probes and an app-access user with chosen permissions. */
import { randomUUID } from 'node:crypto';
import { createStandaloneApp } from '../../container/app.ts';
import { run } from '../../core/db/database.ts';
import { createServices } from '../../core/services.ts';
import { createTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

export async function tableExists(t: TestApp, table: string): Promise<boolean> {
  const rows = await run(t.services.database.db,
    "select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema() where c.relname = $1 and c.relkind = 'r'", [table]);
  return rows.length > 0;
}

export async function columnsOf(t: TestApp, table: string): Promise<Record<string, { type: string; nullable: boolean; default: string | null }>> {
  const rows = await run<{ column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(t.services.database.db,
    'select column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = current_schema() and table_name = $1', [table]);
  return Object.fromEntries(rows.map((r) => [r.column_name, { type: r.data_type, nullable: r.is_nullable === 'YES', default: r.column_default }]));
}

/** A user whose role has one policy (app access unless told otherwise) with read permission on `readable`. */
export async function createAppUser(t: TestApp, opts: { app?: boolean; readable?: Record<string, string[] | null> } = {}): Promise<string> {
  const db = t.services.database.db;
  const role = randomUUID();
  const policy = randomUUID();
  const token = `token-${randomUUID()}`;
  await run(db, 'insert into svc_roles (id, name) values ($1, $2)', [role, 'Editors']);
  await run(db, 'insert into svc_policies (id, name, app_access) values ($1, $2, $3)', [policy, 'Editors', opts.app ?? true]);
  await run(db, 'insert into svc_access (id, role, policy) values ($1, $2, $3)', [randomUUID(), role, policy]);
  await run(db, "insert into svc_users (id, email, role, token, status) values ($1, $2, $3, $4, 'active')",
    [randomUUID(), `${randomUUID()}@example.com`, role, token]);
  for (const [collection, fields] of Object.entries(opts.readable ?? {})) {
    await run(db, "insert into svc_permissions (policy, collection, action, fields) values ($1, $2, 'read', $3::json)",
      [policy, collection, JSON.stringify(fields ?? ['*'])]);
  }
  await t.services.schema.invalidate();
  return token;
}

export interface SecondInstance {
  req: TestApp['req'];
  close(): Promise<void>;
}

/** A second process on the first one's database and shared store. With Postgres it gets its own pool
 * (createTestApp with `database`); an embedded PGlite can only be shared as the same Database object. */
export async function secondInstance(first: TestApp & { database: TestDatabase }): Promise<SecondInstance> {
  if (first.database.url) return createTestApp({ database: first.database, store: first.services.store });
  const services = await createServices(first.services.config, { database: first.services.database, store: first.services.store, skipMigrations: true });
  const app = createStandaloneApp(services);
  const req: TestApp['req'] = async (method, path, body) => {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text, headers: res.headers };
  };
  return { req, close: async () => {} }; // the database and store belong to the first instance
}
