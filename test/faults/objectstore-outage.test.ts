/** Object store outage, for real: the app (in-process) stores files in an objectstore provider on a real
 * S3-protocol server (s3rver), which is stopped (connections cut, port closed) and started again on the same port
 * and directory. What the code promises while it is down and after it returns:
 * - uploads (POST /files) answer 503 SERVICE_UNAVAILABLE with Retry-After and a message naming the object store,
 *   and leave nothing behind: no svc_files row, no object;
 * - asset reads, raw and transformed, answer 503 with Retry-After promptly (never a 500, never a hang);
 * - a transform asked for during the outage caches nothing: after the return it is rendered whole and served;
 * - a resumable (tus) upload: PATCH answers 503 and keeps the offset; after the return it completes with the right
 *   bytes; an upload begun during the outage answers 503 and leaves no row;
 * - a store that accepts connections but never answers (hung) holds a read for a bounded time, then 503. */
import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheKeyFor } from '../../core/assets/transform-plan.ts';
import { run } from '../../core/db/database.ts';
import type { StorageDriver } from '../../core/storage/driver.ts';
import type { Hono } from 'hono';
import { createStandaloneApp } from '../../container/app.ts';
import { createServices } from '../../core/services.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { createTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { halves } from '../assets/images.ts';
import { BOUNDARY, multipart, type Part } from '../files/helpers.ts';
import { bytes, tus, viaApp } from '../tus/helpers.ts';

const MB = 1024 * 1024;
/** An answer during the outage comes within this (connection refused is immediate; retries are few and short). */
const PROMPT_MS = 10_000;

let s3: TestS3;
let root: string;
let t: TestApp & { database: TestDatabase };
const ENV = () => ({ STORAGE_LOCAL_ROOT: root, RATE_LIMITER_ENABLED: 'false', FILES_MAX_UPLOAD_SIZE: '50mb' });

interface Answer { status: number; headers: Headers; body: Buffer; json: any; ms: number }

async function request(method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const started = Date.now();
  const res = await t.app.request(path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers }, body: body ? new Uint8Array(body) : undefined });
  const buf = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').includes('json') && buf.length ? JSON.parse(buf.toString()) : null;
  return { status: res.status, headers: res.headers, body: buf, json, ms: Date.now() - started };
}

const uploadTo = (parts: Part[]) => request('POST', '/files', multipart(parts), { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` });

function expectUnavailable(res: Answer, what: string): void {
  expect(res.status, `${what}: ${res.body.toString().slice(0, 300)}`).toBe(503);
  expect(res.json?.errors?.[0]?.extensions?.code, what).toBe('SERVICE_UNAVAILABLE');
  expect(res.json.errors[0].message, what).toMatch(/object store/i);
  expect(Number(res.headers.get('retry-after')), what).toBeGreaterThan(0);
  expect(res.ms, what).toBeLessThan(PROMPT_MS);
}

async function driver(): Promise<StorageDriver> {
  return (await t.services.storage.providers((await t.services.schema.get()).version)).get('s3');
}

async function objects(): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of (await driver()).list('')) keys.push(key);
  return keys.sort();
}

const fileRows = async () => (await run<{ id: string }>(t.services.database.db, 'select id from svc_files order by id')).map((r) => r.id);

/** A second instance on the same database, which has cached nothing of any upload. On Postgres its own pool and
 * shared store (closing it must not close the first one's); under PGlite (one embedded database per process) its own
 * Services on the same Database and store, left open for the first instance to close. */
async function secondInstance(): Promise<{ app: Hono<AppEnv>; close(): Promise<void> }> {
  if (t.database.url) {
    const other = await createTestApp({ env: ENV(), database: t.database });
    return { app: other.app, close: () => other.close() };
  }
  const services = await createServices(t.services.config, { database: t.services.database, store: t.services.store, skipMigrations: true });
  return { app: createStandaloneApp(services), close: async () => {} };
}

/** Runs `fn` with the object store down, and brings it back whatever happens. */
async function duringOutage<T>(fn: () => Promise<T>): Promise<T> {
  await s3.down();
  try {
    return await fn();
  } finally {
    await s3.up();
  }
}

beforeAll(async () => {
  s3 = await startS3('svc-outage');
  root = mkdtempSync(join(tmpdir(), 'svc-outage-'));
  t = await createTestApp({ env: ENV() });
  const res = await t.req('POST', '/system/storage-providers', { name: 's3', value: s3.config });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await s3?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('object store outage (s3rver stopped and started again)', () => {
  it('an upload answers 503 with Retry-After and leaves no row and no object; uploads work again after the return', async () => {
    const rowsBefore = await fileRows();
    const objectsBefore = await objects();
    const file: Part = { name: 'file', filename: 'notes.txt', type: 'text/plain', data: 'written during the outage' };
    const refused = await duringOutage(() => uploadTo([{ name: 'storage', value: 's3' }, file]));
    expectUnavailable(refused, 'POST /files');
    expect(await fileRows()).toEqual(rowsBefore);
    expect(await objects()).toEqual(objectsBefore);

    const stored = await uploadTo([{ name: 'storage', value: 's3' }, file]);
    expect(stored.status, stored.body.toString()).toBe(200);
    expect(await objects()).toEqual([...objectsBefore, stored.json.data.filename_disk].sort());
  });

  it('asset reads answer 503 promptly, raw and transformed; a transform asked for meanwhile is cached only whole, after the return', async () => {
    const raw = Buffer.alloc(20_000, 7);
    const png = await halves(300, 200);
    const a = await uploadTo([{ name: 'storage', value: 's3' }, { name: 'file', filename: 'raw.bin', type: 'application/octet-stream', data: raw }]);
    const b = await uploadTo([{ name: 'storage', value: 's3' }, { name: 'file', filename: 'picture.png', type: 'image/png', data: png }]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const rawId = a.json.data.id as string;
    const img = b.json.data as { id: string; filename_disk: string };
    const cacheKey = cacheKeyFor(img.filename_disk, { width: 60, fit: 'cover', format: 'webp' });

    await duringOutage(async () => {
      expectUnavailable(await request('GET', `/assets/${rawId}`), 'raw asset');
      expectUnavailable(await request('GET', `/assets/${rawId}`, undefined, { range: 'bytes=0-99' }), 'ranged asset');
      expectUnavailable(await request('GET', `/assets/${img.id}?width=60&format=webp`), 'transformed asset');
      // The original without a transform too.
      expectUnavailable(await request('GET', `/assets/${img.id}`), 'original image');
    });

    expect(await (await driver()).stat(cacheKey)).toBeNull();
    const back = await request('GET', `/assets/${rawId}`);
    expect(back.status).toBe(200);
    expect(back.body.equals(raw)).toBe(true);
    const transformed = await request('GET', `/assets/${img.id}?width=60&format=webp`);
    expect(transformed.status, transformed.body.toString().slice(0, 300)).toBe(200);
    expect(await sharp(transformed.body).metadata()).toMatchObject({ width: 60, height: 40, format: 'webp' });
    expect((await (await driver()).stat(cacheKey))?.size).toBe(transformed.body.length);
  });

  it('tus: PATCH during the outage answers 503 and keeps the offset; after the return the upload completes with the right bytes', async () => {
    const client = tus(viaApp(t.app));
    const data = bytes(7 * MB, 33);
    const created = await client.create(data.length, { filename: 'resumed.bin', filetype: 'application/octet-stream', storage: 's3' });
    expect(created.status, created.body).toBe(201);
    const id = created.id!;
    const first = await client.patch(id, 0, data.subarray(0, 6 * MB));
    expect(first.status, first.body).toBe(204);
    expect(first.headers.get('upload-offset')).toBe(String(6 * MB));

    const rowsBefore = await fileRows();
    const other = await secondInstance();
    try {
      await duringOutage(async () => {
        // An instance that has not read the upload's info object yet: unavailable, not a missing upload (404), which
        // would make the client start over.
        const asked = Date.now();
        const elsewhere = await tus(viaApp(other.app)).head(id);
        expect(elsewhere.status).toBe(503);
        expect(Number(elsewhere.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Date.now() - asked).toBeLessThan(PROMPT_MS);
        const started = Date.now();
        const patch = await client.patch(id, 6 * MB, data.subarray(6 * MB));
        const json = JSON.parse(patch.body || 'null');
        expectUnavailable({ status: patch.status, headers: patch.headers, body: Buffer.from(patch.body), json, ms: Date.now() - started }, 'tus PATCH');
        // A new upload cannot begin either, and leaves no row behind.
        const began = Date.now();
        const refused = await client.create(1000, { filename: 'later.bin', filetype: 'application/octet-stream', storage: 's3' });
        expectUnavailable({ status: refused.status, headers: refused.headers, body: Buffer.from(refused.body), json: JSON.parse(refused.body || 'null'), ms: Date.now() - began }, 'tus POST');
        expect(await fileRows()).toEqual(rowsBefore);
      });

      for (const instance of [client, tus(viaApp(other.app))]) {
        const head = await instance.head(id);
        expect(head.status).toBe(200);
        expect(head.headers.get('upload-offset')).toBe(String(6 * MB));
      }
    } finally {
      await other.close();
    }
    const last = await client.patch(id, 6 * MB, data.subarray(6 * MB));
    expect(last.status, last.body).toBe(204);
    expect(last.headers.get('upload-offset')).toBe(String(data.length));
    const asset = await request('GET', `/assets/${id}`);
    expect(asset.status).toBe(200);
    expect(asset.body.equals(Buffer.from(data))).toBe(true);
  }, 60_000);

  it('a store that accepts connections and never answers: the read answers 503 within the client timeouts, not a hang', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => { sockets.add(socket); socket.on('error', () => {}); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (silent.address() as { port: number }).port;
      const res = await t.req('POST', '/system/storage-providers', { name: 'hung', value: { ...s3.config, bucket: 'hung', endpoint: `http://127.0.0.1:${port}` } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const id = randomUUID();
      await run(t.services.database.db, `insert into svc_files (id, storage, filename_disk, filename_download, type, filesize)
        values ($1, 'hung', $2, 'hung.bin', 'application/octet-stream', 10)`, [id, `${id}.bin`]);
      const started = Date.now();
      const read = await request('GET', `/assets/${id}`);
      const ms = Date.now() - started;
      // Two attempts of OBJECTSTORE_ANSWER_TIMEOUT_MS (10 s) each, and a short back-off between them.
      expect(read.status, read.body.toString().slice(0, 300)).toBe(503);
      expect(read.json.errors[0].message).toMatch(/object store/i);
      expect(Number(read.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(ms).toBeGreaterThanOrEqual(10_000);
      expect(ms).toBeLessThan(30_000);
      expect(sockets.size).toBeGreaterThan(0); // the store was reached, and kept silent
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);
});
