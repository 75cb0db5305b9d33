/** GET and HEAD /assets/{id} and /assets/{id}.{ext} (SPEC.md > Assets): HTTP framing of core/assets/serve.ts.
 * Bodies stream from the storage driver; errors carrying headers (Content-Range of a 416, Retry-After of a
 * 503) get them before the error envelope is written. */
import { Readable } from 'node:stream';
import type { Context, Hono } from 'hono';
import { serveAsset } from '../core/assets/serve.ts';
import type { AppEnv } from '../functions/http/env.ts';
import { serviceContext } from '../functions/http/context.ts';

function withHeaders(err: unknown): err is { headers: Record<string, string> } {
  return typeof err === 'object' && err !== null && typeof (err as { headers?: unknown }).headers === 'object';
}

async function handle(c: Context<AppEnv>): Promise<Response> {
  const ctx = await serviceContext(c);
  try {
    const res = await serveAsset(c.get('services'), ctx, {
      id: c.req.param('id') ?? '',
      query: c.req.query(),
      head: c.req.method === 'HEAD',
      headers: {
        range: c.req.header('range'),
        ifRange: c.req.header('if-range'),
        ifNoneMatch: c.req.header('if-none-match'),
        ifModifiedSince: c.req.header('if-modified-since'),
        accept: c.req.header('accept'),
      },
    });
    const body = res.body ? Readable.toWeb(res.body) as ReadableStream<Uint8Array> : null;
    return new Response(body, { status: res.status, headers: res.headers });
  } catch (err) {
    if (withHeaders(err)) for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    throw err;
  }
}

export function mountAssetRoutes(app: Hono<AppEnv>): void {
  // Hono answers HEAD through the GET route (and drops the body); the handler never opens a stream for HEAD.
  app.get('/assets/:id', handle);
}
