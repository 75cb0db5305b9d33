import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { secondInstance, type SecondInstance } from './helpers.ts';

let a: TestApp;
let b: SecondInstance;

beforeAll(async () => {
  const first = await createTestApp();
  a = first;
  b = await secondInstance(first);
});
afterAll(async () => {
  await b.close();
  await a.close();
});

describe('schema cache across instances', () => {
  it('a change through one instance is seen by the other on its next request', async () => {
    // Warm B's cache first so it holds the old schema.
    expect((await b.req('GET', '/collections/library')).status).toBe(404);

    expect((await a.req('POST', '/collections', { collection: 'library', schema: {} })).status).toBe(200);
    const collection = await b.req('GET', '/collections/library');
    expect(collection.status).toBe(200);
    expect(collection.body.data.schema).toEqual({ name: 'library', comment: null });

    expect((await a.req('POST', '/fields/library', { field: 'isbn', type: 'string' })).status).toBe(200);
    const fields = await b.req('GET', '/fields/library');
    expect(fields.body.data.map((f: { field: string }) => f.field)).toEqual(['id', 'isbn']);

    expect((await a.req('PATCH', '/fields/library/isbn', { type: 'text' })).status).toBe(200);
    expect((await b.req('GET', '/fields/library/isbn')).body.data.type).toBe('text');

    expect((await a.req('DELETE', '/fields/library/isbn')).status).toBe(204);
    expect((await b.req('GET', '/fields/library/isbn')).status).toBe(404);

    expect((await a.req('DELETE', '/collections/library')).status).toBe(204);
    expect((await b.req('GET', '/collections/library')).status).toBe(404);
  });

  it('concurrent schema changes on both instances serialize under the lock', async () => {
    const results = await Promise.all([
      a.req('POST', '/collections', { collection: 'race', schema: {} }),
      b.req('POST', '/collections', { collection: 'race', schema: {} }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const adds = await Promise.all(['one', 'two', 'three'].map((f, i) => (i % 2 ? a : b).req('POST', '/fields/race', { field: f, type: 'integer' })));
    expect(adds.map((r) => r.status)).toEqual([200, 200, 200]);
    const fields = await a.req('GET', '/fields/race');
    expect(fields.body.data.map((f: { field: string }) => f.field).sort()).toEqual(['id', 'one', 'three', 'two']);
  });
});
