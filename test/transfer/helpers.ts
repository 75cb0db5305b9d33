/** Shared set-up of the import/export tests: a `products` collection created through the API (every common field
 * type), raw requests (multipart, bytes) and counts. */
import { expect } from 'vitest';
import { run } from '../../core/db/database.ts';
import type { TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

export const PRODUCT_FIELDS = [
  { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
  { field: 'name', type: 'string', schema: { is_nullable: false } },
  { field: 'price', type: 'float' },
  { field: 'qty', type: 'integer' },
  { field: 'active', type: 'boolean' },
  { field: 'tags', type: 'csv' },
  { field: 'meta', type: 'json' },
  { field: 'released', type: 'date' },
  { field: 'note', type: 'text' },
  { field: 'big', type: 'bigInteger' },
];

export async function createProducts(t: TestApp, collection = 'products'): Promise<void> {
  const res = await t.req('POST', '/collections', { collection, schema: {}, meta: {}, fields: PRODUCT_FIELDS });
  expect(res.status).toBe(200);
}

export interface RawResponse { status: number; text: string; json: any; headers: Headers }

export async function send(t: TestApp, method: string, path: string, body: BodyInit | undefined, headers: Record<string, string> = {}, token: string | null = ADMIN_TOKEN): Promise<RawResponse> {
  const h: Record<string, string> = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  const res = await t.app.request(path, { method, headers: h, body });
  const text = await res.text();
  let json: any = null;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) json = JSON.parse(text);
  return { status: res.status, text, json, headers: res.headers };
}

/** A multipart body with one file part. */
export function fileForm(content: string | Uint8Array<ArrayBuffer>, filename: string, type: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([content], { type }), filename);
  return form;
}

export async function count(t: TestApp, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await run<{ n: string | number }>(t.services.database.db, sql, params);
  return Number(row.n);
}

export const rowsOf = (t: TestApp, collection: string) => count(t, `select count(*) as n from "${collection}"`);
export const activityOf = (t: TestApp, collection: string) => count(t, "select count(*) as n from svc_activity where collection = $1 and action = 'create'", [collection]);

export function errorOf(r: RawResponse): { message: string; code: string } {
  expect(r.json?.errors?.length, r.text).toBeGreaterThan(0);
  return { message: r.json.errors[0].message, code: r.json.errors[0].extensions.code };
}
