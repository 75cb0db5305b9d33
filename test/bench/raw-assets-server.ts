/** The asset benchmark's reference ceiling: plain node:http, no framework, no database, no permissions.
 * GET /files/{name} streams a file of ROOT with node:fs (one `bytes=a-b` range honoured, 206); GET
 * /transform/{name}?width=&quality= calls sharp directly on the file and streams the JPEG (no cache).
 *
 * Env: ROOT (required), PORT (default 8064), HOST (default 127.0.0.1).
 * Run: node --import tsx test/bench/raw-assets-server.ts */
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, join } from 'node:path';
import sharp from 'sharp';

const root = process.env.ROOT;
if (!root) throw new Error('raw-assets-server: ROOT is required');
const port = Number(process.env.PORT ?? 8064);
// libvips' operation cache would hand later requests the decoded source of an earlier one (same path, same
// shrink-on-load factor): the service streams its input from a storage driver and can't get that, so the
// reference does the same work per request. RAW_SHARP_CACHE=1 keeps the cache on.
if (process.env.RAW_SHARP_CACHE !== '1') sharp.cache(false);
const hostname = process.env.HOST ?? '127.0.0.1';

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/server/health') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  const [, kind, raw] = url.pathname.split('/');
  const path = join(root, basename(raw ?? ''));
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    res.writeHead(404).end();
    return;
  }
  if (kind === 'files') {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (m) {
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), size - 1);
      res.writeHead(206, { 'content-type': 'application/octet-stream', 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${size}` });
      createReadStream(path, { start, end }).pipe(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size, 'accept-ranges': 'bytes' });
    createReadStream(path).pipe(res);
    return;
  }
  if (kind === 'transform') {
    const width = Number(url.searchParams.get('width') ?? 200);
    const quality = Number(url.searchParams.get('quality') ?? 80);
    sharp(path).rotate().resize({ width, fit: 'cover' }).jpeg({ quality }).toBuffer().then(
      (out) => res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': out.length }).end(out),
      () => res.writeHead(500).end(),
    );
    return;
  }
  res.writeHead(404).end();
});
server.listen(port, hostname, () => console.log(`raw assets server listening on http://${hostname}:${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
