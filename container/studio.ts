/** The Studio (studio/, built by Vite into studio/dist) at /admin, in the standalone process and the container; the
 * cloud deployment serves the same files from the bucket behind CloudFront (infra/). Hashed assets are immutable;
 * every other path under /admin is the single page's index.html, never cached, so a deploy is picked up at the next
 * load. A strict Content-Security-Policy and the other security headers (container/studio-headers.ts, shared with the
 * CloudFront function of infra/studio.ts) on every answer. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, Hono } from 'hono';
import { ServiceUnavailableError } from '../core/errors.ts';
import type { AppEnv } from '../functions/http/env.ts';
import { parsePreviewOrigins, studioSecurityHeaders } from './studio-headers.ts';

export { SECURITY_HEADERS, STUDIO_CSP } from './studio-headers.ts';

/** studio/dist beside the sources (container/studio.ts) or beside the compiled dist/ (dist/container/studio.js). The
 * compiled dist/ has a package.json of its own (tsc copies the one core/openapi/title.ts imports), so the folder
 * holding studio/ wins over the first one with a package.json. */
export function defaultStudioDir(): string {
  let dir = dirname(new URL(import.meta.url).pathname);
  let withPackage: string | null = null;
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'studio'))) return join(dir, 'studio', 'dist');
    if (withPackage === null && existsSync(join(dir, 'package.json'))) withPackage = join(dir, 'studio', 'dist');
    dir = dirname(dir);
  }
  return withPackage ?? resolve('studio', 'dist');
}

/** `previewOrigins`: STUDIO_PREVIEW_ORIGINS (config.studioPreviewOrigins), the websites live preview may frame; an
 * entry that is not an origin stops the start. */
export function mountStudio(app: Hono<AppEnv>, opts: { dir?: string; previewOrigins?: readonly string[] } = {}): void {
  const dir = opts.dir ?? defaultStudioDir();
  const headers = studioSecurityHeaders(parsePreviewOrigins(opts.previewOrigins));
  const secure = (c: Context<AppEnv>): void => {
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
  };
  let index: Promise<string> | null = null;
  const indexHtml = () => {
    index ??= readFile(join(dir, 'index.html'), 'utf8').catch((err: unknown) => {
      index = null;
      throw err;
    });
    return index;
  };

  app.get('/admin', (c) => c.redirect('/admin/', 301));
  // Created at the first asset request, so a server started before the first build does not warn at mount.
  let assets: ReturnType<typeof serveStatic> | null = null;
  app.get('/admin/assets/*', async (c, next) => {
    assets ??= serveStatic({ root: dir, rewriteRequestPath: (path) => path.slice('/admin'.length), precompressed: true });
    const res = await assets(c as unknown as Context, next);
    if (res instanceof Response && res.ok) {
      res.headers.set('Cache-Control', 'public, max-age=31536000, immutable');
      for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
    }
    return res;
  });
  app.get('/admin/*', async (c) => {
    // A missing hashed asset is a 404, not the page: a stale tab asking for an old chunk must fail visibly.
    if (c.req.path.startsWith('/admin/assets/')) return c.json({ errors: [{ message: 'Not found', extensions: { code: 'ROUTE_NOT_FOUND' } }] }, 404);
    let html: string;
    try {
      html = await indexHtml();
    } catch {
      throw new ServiceUnavailableError('The Studio is not built: run `npm run build:studio` (`npm start` builds it when it is missing).');
    }
    secure(c);
    c.header('Cache-Control', 'no-cache');
    return c.html(html);
  });
}
