/** Raw tus 1.0.0 requests (no tus client) through the in-process app or a real server's URL. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { ADMIN_TOKEN } from '../helpers/template.ts';

export type Fetcher = (path: string, init: RequestInit) => Promise<Response>;

export function viaApp(app: Hono<any>): Fetcher {
  return async (path, init) => app.request(path, init);
}

/** A fresh connection per request (node:http without an agent): Node's fetch keeps sockets alive and ignores a
 * `connection: close` header, so after a server is killed and restarted, or as a server closes an idle socket on a
 * busy machine, a pooled socket fails the next request with "other side closed". */
export function viaUrl(base: string): Fetcher {
  return (path, init) => freshConnectionFetch(base + path, init);
}

export function freshConnectionFetch(url: string, init: RequestInit = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const method = init.method ?? 'GET';
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
        const status = res.statusCode ?? 0;
        const empty = method === 'HEAD' || status === 204 || status === 304;
        resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: out }));
      });
    });
    req.on('error', reject);
    const body = init.body;
    if (body instanceof ReadableStream) {
      const reader = (body as ReadableStream<Uint8Array>).getReader();
      req.on('error', () => { void reader.cancel().catch(() => {}); });
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
          if (done) { req.end(); return; }
          if (!req.write(value)) await new Promise((r) => req.once('drain', r));
        }
      })();
    } else if (body === undefined || body === null) {
      req.end();
    } else if (typeof body === 'string' || body instanceof Uint8Array) {
      req.end(body);
    } else {
      reject(new Error('freshConnectionFetch: unsupported body type'));
      req.destroy();
    }
  });
}

export function freshRoot(): string {
  return mkdtempSync(join(tmpdir(), 'svc-tus-'));
}

export function metadata(fields: Record<string, string>): string {
  return Object.entries(fields).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');
}

export interface TusResponse { status: number; headers: Headers; body: string }

async function done(res: Response): Promise<TusResponse> {
  return { status: res.status, headers: res.headers, body: await res.text() };
}

export function tus(f: Fetcher, token: string | null = ADMIN_TOKEN) {
  const auth = (): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
  return {
    async create(length: number, meta: Record<string, string> | string | null, extra: Record<string, string> = {}): Promise<TusResponse & { id: string | null }> {
      const headers: Record<string, string> = { 'tus-resumable': '1.0.0', 'upload-length': String(length), ...auth(), ...extra };
      if (meta !== null) headers['upload-metadata'] = typeof meta === 'string' ? meta : metadata(meta);
      const r = await done(await f('/tus', { method: 'POST', headers }));
      const location = r.headers.get('location');
      return { ...r, id: location ? location.split('/').pop()! : null };
    },
    async patch(id: string, offset: number, body: Uint8Array | ReadableStream<Uint8Array>, extra: Record<string, string> = {}): Promise<TusResponse> {
      const init: RequestInit & { duplex?: string } = {
        method: 'PATCH',
        headers: { 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', ...auth(), ...extra },
        body: body as BodyInit,
      };
      if (body instanceof ReadableStream) init.duplex = 'half';
      return done(await f(`/tus/${id}`, init));
    },
    async head(id: string, extra: Record<string, string> = {}): Promise<TusResponse> {
      return done(await f(`/tus/${id}`, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0', ...auth(), ...extra } }));
    },
    async remove(id: string): Promise<TusResponse> {
      return done(await f(`/tus/${id}`, { method: 'DELETE', headers: { 'tus-resumable': '1.0.0', ...auth() } }));
    },
  };
}

/** Deterministic test bytes. */
export function bytes(n: number, seed = 7): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) & 0x7fffffff; out[i] = x >> 16; }
  return out;
}
