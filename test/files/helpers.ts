/** Multipart bodies and storage checks for the files tests. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

export type Part = { name: string; value: string } | { name: string; filename: string; type?: string; data: Buffer | string };

export const BOUNDARY = 'svcTestBoundary7MA4YWxkTrZu0gW';

export function multipart(parts: Part[], opts: { truncate?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${BOUNDARY}\r\n`));
    if ('filename' in p) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`));
      chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}`));
    }
    chunks.push(Buffer.from('\r\n'));
  }
  if (!opts.truncate) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  const all = Buffer.concat(chunks);
  return opts.truncate ? all.subarray(0, all.length - 10) : all;
}

export async function send(t: TestApp, method: string, path: string, body: Buffer | ReadableStream<Uint8Array>, token: string | null = ADMIN_TOKEN): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  if (token) headers.authorization = `Bearer ${token}`;
  const init: RequestInit & { duplex?: 'half' } = { method, headers, body: body as BodyInit };
  if (!Buffer.isBuffer(body)) init.duplex = 'half';
  const res = await t.app.request(path, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export function upload(t: TestApp, parts: Part[], token?: string | null) {
  return send(t, 'POST', '/files', multipart(parts), token);
}

export interface FilesTestApp {
  t: TestApp;
  root: string;
  /** Objects in the local storage root (hidden temporaries excluded). */
  stored(): string[];
  close(): Promise<void>;
}

export async function filesApp(env: Record<string, string> = {}): Promise<FilesTestApp> {
  const root = mkdtempSync(join(tmpdir(), 'svc-files-'));
  const t = await createTestApp({ env: { STORAGE_LOCAL_ROOT: root, ...env } });
  return {
    t,
    root,
    stored: () => {
      try {
        return readdirSync(root).filter((n) => !n.startsWith('.')).sort();
      } catch {
        return [];
      }
    },
    async close() {
      await t.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
