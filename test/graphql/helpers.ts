/** GraphQL request helpers for the tests of /graphql. */
import type { TestApp } from '../helpers/app.ts';

export interface GqlResponse { status: number; body: any }

export function gql(t: TestApp, query: string, variables?: Record<string, unknown>, opts: { token?: string | null; path?: string } = {}): Promise<GqlResponse> {
  return t.req('POST', opts.path ?? '/graphql', variables ? { query, variables } : { query }, { token: opts.token });
}

/** REST answers primary keys as numbers, GraphQL's ID as strings: `id` members are compared as strings. */
export function idsAsStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(idsAsStrings);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'id' && (typeof v === 'number' || typeof v === 'string') ? String(v) : idsAsStrings(v)]));
  }
  return value;
}

/** Counts the SQL statements the app's root executor runs while `fn` runs, keeping those matching `filter`. */
export async function countStatements(t: TestApp, fn: () => Promise<unknown>, filter: (sql: string) => boolean = () => true): Promise<{ count: number; sql: string[] }> {
  const db = t.services.database.db as unknown as { executeQuery: (q: { sql: string }) => Promise<unknown> };
  const original = db.executeQuery;
  const seen: string[] = [];
  db.executeQuery = function (this: unknown, q: { sql: string }) {
    seen.push(q.sql);
    return original.call(this, q);
  } as typeof original;
  try {
    await fn();
  } finally {
    db.executeQuery = original;
  }
  const sql = seen.filter(filter);
  return { count: sql.length, sql };
}

const INTROSPECT = `{ __schema { queryType { fields { name } } mutationType { fields { name } } types { name fields { name } inputFields { name } } } }`;

export interface SchemaView {
  queries: string[];
  mutations: string[];
  types: Map<string, string[]>;
}

export async function introspect(t: TestApp, token?: string, path = '/graphql'): Promise<SchemaView> {
  const r = await gql(t, INTROSPECT, undefined, { token, path });
  if (r.status !== 200) throw new Error(`introspection failed: ${r.status} ${JSON.stringify(r.body)}`);
  const s = r.body.data.__schema;
  const types = new Map<string, string[]>();
  for (const type of s.types) types.set(type.name, (type.fields ?? type.inputFields ?? []).map((f: { name: string }) => f.name));
  return {
    queries: s.queryType.fields.map((f: { name: string }) => f.name),
    mutations: s.mutationType ? s.mutationType.fields.map((f: { name: string }) => f.name) : [],
    types,
  };
}
