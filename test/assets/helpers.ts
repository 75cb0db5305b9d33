/** Asset tests' fixtures: a test app on a fresh STORAGE_LOCAL_ROOT, file rows inserted straight into svc_files
 * and their bytes written through the storage driver (independent of the upload routes). */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { run } from '../../core/db/database.ts';
import type { StorageDriver } from '../../core/storage/driver.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';

export type AssetTestApp = TestApp & { root: string; dispose(): Promise<void> };

export async function assetApp(env: Record<string, string> = {}): Promise<AssetTestApp> {
  const root = mkdtempSync(join(tmpdir(), 'svc-assets-'));
  const t = await createTestApp({ env: { STORAGE_LOCAL_ROOT: root, RATE_LIMITER_ENABLED: 'false', ...env } });
  return Object.assign(t, {
    root,
    async dispose() {
      await t.close();
      rmSync(root, { recursive: true, force: true });
    },
  });
}

export async function driverOf(t: TestApp, storage = 'local'): Promise<StorageDriver> {
  return (await t.services.storage.providers((await t.services.schema.get()).version)).get(storage);
}

export interface FileSpec {
  bytes: Buffer;
  type: string;
  filename_download?: string;
  storage?: string;
  ext?: string;
  tus_id?: string | null;
  focal_point_x?: number | null;
  focal_point_y?: number | null;
  width?: number | null;
  height?: number | null;
  /** Skip writing the bytes (a row whose object is missing). */
  noObject?: boolean;
}

export async function addFile(t: TestApp, spec: FileSpec): Promise<{ id: string; disk: string }> {
  const id = randomUUID();
  const ext = spec.ext ?? spec.type.split('/')[1].replace(/\+.*/, '').replace('jpeg', 'jpg');
  const disk = `${id}.${ext}`;
  const storage = spec.storage ?? 'local';
  if (!spec.noObject) await (await driverOf(t, storage)).write(disk, Readable.from([spec.bytes]), spec.type);
  await run(t.services.database.db, `insert into svc_files (id, storage, filename_disk, filename_download, type, filesize, tus_id,
    focal_point_x, focal_point_y, width, height) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
    id, storage, disk, spec.filename_download ?? `file.${ext}`, spec.type, spec.bytes.length, spec.tus_id ?? null,
    spec.focal_point_x ?? null, spec.focal_point_y ?? null, spec.width ?? null, spec.height ?? null,
  ]);
  return { id, disk };
}

/** Grants the Public role read on svc_files (optionally with a row filter). */
export async function grantPublicRead(t: TestApp, filter: Record<string, unknown> | null = null): Promise<void> {
  const db = t.services.database.db;
  const [row] = await run<{ policy: string }>(db, `select a.policy from svc_access a join svc_settings s on s.public_role = a.role limit 1`);
  await run(db, `insert into svc_permissions (policy, collection, action, fields, permissions) values ($1, 'svc_files', 'read', '["*"]', $2)`,
    [row.policy, filter ? JSON.stringify(filter) : null]);
  await t.services.schema.invalidate();
}

/** A raw request through the app (bytes, not JSON); as the admin unless `token` says otherwise (null: anonymous). */
export async function get(t: TestApp, path: string, opts: { method?: string; headers?: Record<string, string>; token?: string | null } = {}): Promise<{ status: number; headers: Headers; bytes: Buffer; json: any }> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? ADMIN_TOKEN : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await t.app.request(path, { method: opts.method ?? 'GET', headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: unknown = null;
  if ((res.headers.get('content-type') ?? '').includes('application/json')) json = JSON.parse(bytes.toString() || 'null');
  return { status: res.status, headers: res.headers, bytes, json };
}

export const code = (res: { json: any }) => res.json?.errors?.[0]?.extensions?.code;

export function pattern(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + 7) & 0xff;
  return b;
}
