/** The unchanged @directus/sdk's schemaSnapshot, schemaDiff and schemaApply against /schema: Directus' shapes, so its
 * tooling moves a schema between two servers. Requests go through each app in process (the SDK's `globals.fetch`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { buildRichSchema, comparable } from './snapshot-model.ts';

type Sdk = Record<string, (...args: any[]) => any>;
const sdk = await import('@directus/sdk') as unknown as Sdk;
type Client = { request<T>(command: unknown): Promise<T> };

function clientOf(t: TestApp): Client {
  const fetchInApp = (input: string | URL | Request, init?: RequestInit) => t.app.request(String(input instanceof Request ? input.url : input), init);
  return sdk.createDirectus('http://service.test', { globals: { fetch: fetchInApp } }).with(sdk.staticToken(ADMIN_TOKEN)).with(sdk.rest());
}

describe('@directus/sdk schema commands', () => {
  let dev: TestApp;
  let prod: TestApp;
  beforeAll(async () => {
    [dev, prod] = await Promise.all([createTestApp(), createTestApp()]);
    await buildRichSchema(dev);
  });
  afterAll(async () => { await Promise.all([dev?.close(), prod?.close()]); });

  it('moves a schema from one server to another, and reads a part of it', async () => {
    const from = clientOf(dev);
    const to = clientOf(prod);
    const snapshot = await from.request<any>(sdk.schemaSnapshot());
    const diff = await to.request<{ hash: string; diff: unknown }>(sdk.schemaDiff(snapshot));
    expect(diff.hash).toMatch(/^[0-9a-f]{64}$/);
    await to.request(sdk.schemaApply(diff));
    expect(comparable(await to.request(sdk.schemaSnapshot()))).toEqual(comparable(snapshot));
    // Nothing differs: 204, which the SDK answers as null.
    expect(await to.request(sdk.schemaDiff(snapshot))).toBeNull();

    const part = await from.request<any>(sdk.schemaSnapshot({ includeCollections: ['authors', 'articles'] }));
    expect(part.collections.map((c: any) => c.collection)).toEqual(['articles', 'authors']);
    expect(new Set(part.fields.map((f: any) => f.collection))).toEqual(new Set(['articles', 'authors']));
    expect(part.relations.map((r: any) => `${r.collection}.${r.field}`)).toEqual(['articles.author']);
    const rest = await from.request<any>(sdk.schemaSnapshot({ excludeCollections: ['authors', 'articles'] }));
    expect(rest.collections).toHaveLength(snapshot.collections.length - 2);
  });
});
