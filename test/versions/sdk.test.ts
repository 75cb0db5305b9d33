/** The unchanged @directus/sdk (a dev dependency) against /versions and the preview read. Requests go through the
 * app in process via the SDK's `globals.fetch` option. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ARTICLE, versionsApp } from './setup.ts';

type Sdk = Record<string, (...args: any[]) => any>;
const sdk = await import('@directus/sdk') as unknown as Sdk;

describe('@directus/sdk', () => {
  let t: TestApp;
  let client: { request<T>(command: unknown): Promise<T> };

  beforeAll(async () => {
    t = await versionsApp();
    const fetchInApp = (input: string | URL | Request, init?: RequestInit) => t.app.request(String(input instanceof Request ? input.url : input), init);
    client = sdk.createDirectus('http://service.test', { globals: { fetch: fetchInApp } }).with(sdk.staticToken('static-admin-token')).with(sdk.rest());
  });
  afterAll(() => t?.close());

  it('creates, saves, compares, promotes a version and reads the preview', async () => {
    const created = await client.request<{ id: string } | string>(sdk.createContentVersion({ key: 'sdk', name: 'SDK', collection: 'articles', item: ARTICLE }));
    const id = typeof created === 'string' ? created : created.id;
    const saved = await client.request<Record<string, unknown>>(sdk.saveToContentVersion(id, { title: 'From the SDK' }));
    expect(saved).toMatchObject({ id: ARTICLE, title: 'From the SDK' });
    const compared = await client.request<{ outdated: boolean; mainHash: string; current: Record<string, unknown> }>(sdk.compareContentVersion(id));
    expect(compared).toMatchObject({ outdated: false, current: { title: 'From the SDK' } });
    const read = await client.request<Record<string, unknown>>(sdk.readContentVersion(id));
    expect(read).toMatchObject({ id, key: 'sdk', collection: 'articles', item: ARTICLE, status: 'draft' });
    const preview = await client.request<Record<string, unknown>>(sdk.readItem('articles', ARTICLE, { version: id } as Record<string, unknown>));
    expect(preview.title).toBe('From the SDK');
    await client.request(sdk.promoteContentVersion(id, compared.mainHash));
    const item = await client.request<Record<string, unknown>>(sdk.readItem('articles', ARTICLE));
    expect(item).toMatchObject({ title: 'From the SDK', status: 'published' });
  });
});
