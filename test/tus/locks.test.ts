/** Locks: two app instances on one database, one storage root and one Redis serve one upload (first chunk through
 * A, HEAD and the rest through B), and concurrent PATCHes on one upload never corrupt it: the later request asks
 * the holder to let go, the holder ends with what it wrote, and the later one is told the offset moved (409).
 * Two instances need TEST_DATABASE_URL and REDIS_URL; the single-process case (memory locker) always runs. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { RedisLocker } from '../../core/tus/redis-locker.ts';
import { tusRuntime } from '../../container/tus.ts';
import { cloneTestDatabase, createTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { bytes, freshRoot, tus, viaApp } from './helpers.ts';

const pgUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.REDIS_URL;

/** A PATCH whose body the test feeds by hand, so it is provably still running when the next request comes. */
function slowPatch(client: ReturnType<typeof tus>, id: string, offset: number, first: Uint8Array, declared: number) {
  let push!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start(c) { push = c; } });
  const response = client.patch(id, offset, body, { 'content-length': String(declared) });
  push.enqueue(first);
  return { response, push };
}

async function concurrentPatches(a: TestApp, b: TestApp, root: string): Promise<void> {
  const ca = tus(viaApp(a.app));
  const cb = tus(viaApp(b.app));
  const data = bytes(50_000, 3);
  const id = (await ca.create(data.length, { filename: 'race.bin', filetype: 'application/octet-stream' })).id!;
  const slow = slowPatch(ca, id, 0, data.slice(0, 10_000), data.length);
  await new Promise((r) => setTimeout(r, 300));
  // Same offset, whole body, while the first still holds the upload.
  const second = await cb.patch(id, 0, data);
  const first = await slow.response;
  expect([409, 423]).toContain(second.status);
  // The first ends with what it wrote (204 with its offset, or 400 if its stream was cut).
  expect([204, 400]).toContain(first.status);
  const offset = Number((await cb.head(id)).headers.get('upload-offset'));
  expect(offset).toBe(10_000);
  // Nothing of the refused request reached the file: resume and finish; the bytes are exactly the data.
  expect((await ca.patch(id, offset, data.subarray(offset))).status).toBe(204);
  const [row] = await run<{ tus_id: string | null; filename_disk: string }>(a.services.database.db, 'select tus_id, filename_disk from svc_files where id = $1', [id]);
  expect(row.tus_id).toBeNull();
  expect(new Uint8Array(readFileSync(join(root, row.filename_disk)))).toEqual(data);
}

describe('one process (memory locker)', () => {
  const root = freshRoot();
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp({ env: { STORAGE_LOCAL_ROOT: root, REDIS_URL: '' } }); });
  afterAll(async () => { await t?.close(); });

  it('concurrent PATCHes on one upload: one is told the offset moved, the upload stays intact', async () => {
    expect(tusRuntime(t.services).locker).not.toBeInstanceOf(RedisLocker);
    await concurrentPatches(t, t, root);
  });
});

describe.skipIf(!pgUrl || !redisUrl)('two instances, one Redis', () => {
  const root = freshRoot();
  const namespace = `test-tus-${randomBytes(4).toString('hex')}`;
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let redis: Redis;

  beforeAll(async () => {
    database = await cloneTestDatabase();
    const env = { STORAGE_LOCAL_ROOT: root, REDIS_URL: redisUrl!, REDIS_NAMESPACE: namespace };
    a = await createTestApp({ database, env });
    b = await createTestApp({ database, env });
    redis = new Redis(redisUrl!);
  });
  afterAll(async () => {
    for (const t of [a, b]) if (t) { await tusRuntime(t.services).close(); await t.close(); }
    redis?.disconnect();
    await database?.drop();
  });

  it('both use the Redis locker', () => {
    expect(tusRuntime(a.services).locker).toBeInstanceOf(RedisLocker);
    expect(tusRuntime(b.services).locker).toBeInstanceOf(RedisLocker);
  });

  it('first chunk through A, HEAD and the rest through B', async () => {
    const ca = tus(viaApp(a.app));
    const cb = tus(viaApp(b.app));
    const data = bytes(40_000, 9);
    const id = (await ca.create(data.length, { filename: 'split.bin', filetype: 'application/octet-stream' })).id!;
    expect((await ca.patch(id, 0, data.subarray(0, 15_000))).status).toBe(204);
    const head = await cb.head(id);
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe('15000');
    expect((await cb.patch(id, 15_000, data.subarray(15_000))).status).toBe(204);
    const [row] = await run<{ tus_id: string | null; filename_disk: string }>(b.services.database.db, 'select tus_id, filename_disk from svc_files where id = $1', [id]);
    expect(row.tus_id).toBeNull();
    expect(new Uint8Array(readFileSync(join(root, row.filename_disk)))).toEqual(data);
    // Every lock was released.
    expect(await redis.keys(`svc:${namespace}:tus:lock:*`)).toEqual([]);
  });

  it('concurrent PATCHes through A and B: one is refused, the upload stays intact', async () => {
    await concurrentPatches(a, b, root);
  });

  it('the lock is in Redis while a PATCH runs', async () => {
    const ca = tus(viaApp(a.app));
    const id = (await ca.create(100, { filename: 'held.bin', filetype: 'application/octet-stream' })).id!;
    const slow = slowPatch(ca, id, 0, bytes(10), 100);
    await new Promise((r) => setTimeout(r, 200));
    expect(await redis.get(`svc:${namespace}:tus:lock:${id}`)).toBeTruthy();
    slow.push.enqueue(bytes(90));
    slow.push.close();
    expect((await slow.response).status).toBe(204);
    expect(await redis.get(`svc:${namespace}:tus:lock:${id}`)).toBeNull();
  });

  it('a holder that ignores release requests: the waiter gives up with 423; a dead holder\'s lock expires', async () => {
    const client = new Redis(redisUrl!);
    try {
      const prefix = `svc:${namespace}:lk:`;
      const locker = new RedisLocker(client, { prefix, acquireTimeoutMs: 400, ttlMs: 600 });
      const held = locker.newLock('x');
      let asked = 0;
      await held.lock(new AbortController().signal, () => { asked++; });
      await expect(locker.newLock('x').lock(new AbortController().signal, () => {})).rejects.toMatchObject({ status_code: 423 });
      expect(asked).toBeGreaterThan(0);
      await held.unlock();
      // A process that died holding the lock: the key (no refresh) is gone after the TTL.
      await client.set(`${prefix}tus:lock:y`, 'dead', 'PX', 300);
      const waiter = new RedisLocker(client, { prefix, acquireTimeoutMs: 2000 });
      const lock = waiter.newLock('y');
      await lock.lock(new AbortController().signal, () => {});
      await lock.unlock();
      await locker.close();
      await waiter.close();
    } finally {
      client.disconnect();
    }
  });
});
