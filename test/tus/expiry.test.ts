/** Expiry of idle resumable uploads (TUS_UPLOAD_EXPIRATION) and the cleanup job (TUS_CLEANUP_SCHEDULE), called
 * directly with a clock; the five-field cron matcher the schedule runs on. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { parseCron } from '../../core/schedule/cron.ts';
import { tusRuntime } from '../../container/tus.ts';
import { cleanupTusUploads } from '../../core/tus/cleanup.ts';
import { createTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { bytes, freshRoot, tus, viaApp } from './helpers.ts';

const root = freshRoot();
let t: TestApp & { database: TestDatabase };
let admin: ReturnType<typeof tus>;
const MINUTE = 60_000;

beforeAll(async () => {
  t = await createTestApp({ env: { STORAGE_LOCAL_ROOT: root, TUS_UPLOAD_EXPIRATION: '10m' } });
  admin = tus(viaApp(t.app));
});
afterAll(async () => {
  await tusRuntime(t.services).close();
  await t?.close();
});

const db = () => t.services.database.db;
const ageBy = (id: string, ms: number) => run(db(), `update svc_files set modified_on = modified_on - ($1::int * interval '1 millisecond') where tus_id = $2`, [ms, id]);
const row = async (id: string) => (await run<Record<string, any>>(db(), 'select * from svc_files where id = $1', [id]))[0];

describe('expiry', () => {
  it('an upload idle for longer than TUS_UPLOAD_EXPIRATION answers 410 on HEAD and PATCH', async () => {
    const up = await admin.create(100, { filename: 'idle.txt', filetype: 'text/plain' });
    expect((await admin.patch(up.id!, 0, bytes(10))).status).toBe(204);
    await ageBy(up.id!, 10 * MINUTE + 1000);
    expect((await admin.head(up.id!)).status).toBe(410);
    expect((await admin.patch(up.id!, 10, bytes(10))).status).toBe(410);
  });

  it('activity restarts the clock: a chunk keeps the upload alive', async () => {
    const up = await admin.create(100, { filename: 'busy.txt', filetype: 'text/plain' });
    await ageBy(up.id!, 9 * MINUTE);
    expect((await admin.patch(up.id!, 0, bytes(10))).status).toBe(204);
    // 9 minutes after that chunk it is still alive, and the cleanup keeps it.
    const later = new Date(Date.now() + 9 * MINUTE);
    const { expired } = await cleanupTusUploads(t.services, later);
    expect(expired).not.toContain(up.id);
    expect((await admin.head(up.id!)).headers.get('upload-offset')).toBe('10');
  });

  it('the cleanup removes expired rows and staged bytes; the upload then answers 404', async () => {
    const a = await admin.create(100, { filename: 'a.txt', filetype: 'text/plain' });
    const b = await admin.create(100, { filename: 'b.txt', filetype: 'text/plain' });
    await admin.patch(a.id!, 0, bytes(50));
    expect(existsSync(join(root, '.tus', a.id!))).toBe(true);
    const { expired } = await cleanupTusUploads(t.services, new Date(Date.now() + 11 * MINUTE));
    expect(expired).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(await row(a.id!)).toBeUndefined();
    expect(await row(b.id!)).toBeUndefined();
    expect(existsSync(join(root, '.tus', a.id!))).toBe(false);
    expect(existsSync(join(root, '.tus', `${a.id}.json`))).toBe(false);
    expect((await admin.head(a.id!)).status).toBe(404);
    expect((await admin.patch(a.id!, 50, bytes(50))).status).toBe(404);
    // Nothing left to do the second time.
    expect((await cleanupTusUploads(t.services, new Date(Date.now() + 11 * MINUTE))).expired).toEqual([]);
  });

  it('complete files are never touched by the cleanup', async () => {
    const up = await admin.create(4, { filename: 'keep.txt', filetype: 'text/plain' });
    await admin.patch(up.id!, 0, new TextEncoder().encode('keep'));
    await cleanupTusUploads(t.services, new Date(Date.now() + 365 * 24 * 60 * MINUTE));
    expect(await row(up.id!)).toMatchObject({ tus_id: null, filename_disk: `${up.id}.txt` });
    expect(readFileSync(join(root, `${up.id}.txt`), 'utf8')).toBe('keep');
  });

  it('an expired replacement gives the file back as it was (row fields and bytes)', async () => {
    const up = await admin.create(3, { filename: 'old.txt', filetype: 'text/plain' });
    await admin.patch(up.id!, 0, new TextEncoder().encode('old'));
    const rep = await admin.create(5, { filename: 'new.csv', filetype: 'text/csv', id: up.id! });
    expect(rep.status).toBe(201);
    await admin.patch(up.id!, 0, new TextEncoder().encode('ne'));
    expect((await row(up.id!)).tus_id).toBe(up.id);
    const { expired } = await cleanupTusUploads(t.services, new Date(Date.now() + 11 * MINUTE));
    expect(expired).toContain(up.id);
    expect(await row(up.id!)).toMatchObject({ tus_id: null, tus_data: null, filename_download: 'old.txt', type: 'text/plain', filename_disk: `${up.id}.txt` });
    expect(readFileSync(join(root, `${up.id}.txt`), 'utf8')).toBe('old');
    expect(existsSync(join(root, '.tus', up.id!))).toBe(false);
  });

  it('staged bytes whose row is gone are swept once idle past the expiration', async () => {
    const up = await admin.create(100, { filename: 'orphan.txt', filetype: 'text/plain' });
    await admin.patch(up.id!, 0, bytes(5));
    await run(db(), 'delete from svc_files where id = $1', [up.id]);
    expect((await cleanupTusUploads(t.services, new Date())).orphans).not.toContain(up.id);
    const { orphans } = await cleanupTusUploads(t.services, new Date(Date.now() + 11 * MINUTE));
    expect(orphans).toContain(up.id);
    expect(existsSync(join(root, '.tus', up.id!))).toBe(false);
  });

  it('concurrent cleaners split the work: every expired upload is removed exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await admin.create(10, { filename: `c${i}.txt`, filetype: 'text/plain' })).id!);
    const later = new Date(Date.now() + 11 * MINUTE);
    const [x, y, z] = await Promise.all([0, 1, 2].map(() => cleanupTusUploads(t.services, later)));
    const all = [...x.expired, ...y.expired, ...z.expired].filter((id) => ids.includes(id));
    expect(all.sort()).toEqual([...ids].sort());
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('a row locked by another cleaner (FOR UPDATE) is skipped, not waited for', async () => {
    const up = await admin.create(10, { filename: 'locked.txt', filetype: 'text/plain' });
    const other = new pg.Client({ connectionString: t.database.url! });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select id from svc_files where id = $1 for update', [up.id]);
      const started = Date.now();
      const { expired } = await cleanupTusUploads(t.services, new Date(Date.now() + 11 * MINUTE));
      expect(expired).not.toContain(up.id);
      expect(Date.now() - started).toBeLessThan(5000);
      await other.query('rollback');
      expect((await cleanupTusUploads(t.services, new Date(Date.now() + 11 * MINUTE))).expired).toContain(up.id);
    } finally {
      await other.end();
    }
  });
});

describe('cron schedule', () => {
  const at = (iso: string) => new Date(iso);
  it('the default 0 */6 * * * fires at minute 0 of hours 0, 6, 12, 18 (UTC)', () => {
    const s = parseCron('0 */6 * * *');
    for (const h of ['00', '06', '12', '18']) expect(s.matches(at(`2026-03-01T${h}:00:00Z`))).toBe(true);
    expect(s.matches(at('2026-03-01T06:01:00Z'))).toBe(false);
    expect(s.matches(at('2026-03-01T05:00:00Z'))).toBe(false);
  });
  it('lists, ranges, steps, and either day field when both are restricted', () => {
    const s = parseCron('5,35 9-17/4 * 1-6 1-5');
    expect(s.matches(at('2026-03-02T09:05:00Z'))).toBe(true); // Monday
    expect(s.matches(at('2026-03-02T13:35:00Z'))).toBe(true);
    expect(s.matches(at('2026-03-02T11:05:00Z'))).toBe(false);
    expect(s.matches(at('2026-03-01T09:05:00Z'))).toBe(false); // Sunday
    expect(s.matches(at('2026-07-01T09:05:00Z'))).toBe(false); // July
    const either = parseCron('0 0 1 * 0');
    expect(either.matches(at('2026-03-01T00:00:00Z'))).toBe(true); // the 1st (a Sunday)
    expect(either.matches(at('2026-03-08T00:00:00Z'))).toBe(true); // a Sunday
    expect(either.matches(at('2026-04-01T00:00:00Z'))).toBe(true); // the 1st (a Wednesday)
    expect(either.matches(at('2026-04-02T00:00:00Z'))).toBe(false);
    expect(parseCron('* * * * 7').matches(at('2026-03-01T10:10:00Z'))).toBe(true);
  });
  it('bad expressions are refused', () => {
    for (const bad of ['* * * *', '60 * * * *', '* 24 * * *', '*/0 * * * *', 'a * * * *', '5-1 * * * *']) expect(() => parseCron(bad)).toThrow();
  });
});
