/** Import and export (SPEC.md > Server, metrics, import/export), served by the container: the bodies are long and
 * streamed both ways (beyond a Lambda's 6 MB and 15 minutes).
 *
 * POST /utils/import/{collection}: multipart/form-data with one file part (as Directus; its content type, else its
 * file extension, says CSV or JSON), or a raw text/csv or application/json body. Answers 200 with an empty body,
 * as Directus does. GET /utils/export/{collection}?format=csv|json plus the query parameters of GET /items: a
 * streamed attachment. */
import type { Context, Hono } from 'hono';
import { pipeline, Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { InvalidPayloadError } from '../../core/errors.ts';
import { parseForm } from '../../core/files/form.ts';
import { exportChunks, exportFormatOf, planExport } from '../../core/transfer/export.ts';
import { checkImport, formatOf, importStream, rawFormatOf } from '../../core/transfer/import.ts';
import { ImportSizeLimit, importTooLarge } from '../../core/transfer/size-limit.ts';
import { serviceContext } from '../../functions/http/context.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { parseQueryString, queryOf } from '../../functions/http/query-string.ts';

function sizeLimit(c: Context<AppEnv>): ImportSizeLimit {
  const max = c.get('services').config.transfer.importMaxSize;
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > max) throw importTooLarge(max);
  return new ImportSizeLimit(max);
}

/** The request body as a Node stream through the size limit (errors of either end reach the other). */
function limitedBody(c: Context<AppEnv>): Readable {
  const body = c.req.raw.body;
  if (!body) throw new InvalidPayloadError('Invalid payload. No file was uploaded.', { field: 'file' });
  const limit = sizeLimit(c);
  pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), limit, () => {});
  return limit;
}

function attachmentName(collection: string, ext: string): string {
  const d = new Date().toISOString();
  const stamp = `${d.slice(0, 10).replace(/-/g, '')}-${d.slice(11, 19).replace(/:/g, '')}`;
  return `${collection.replace(/[^\w.-]/g, '_')}-${stamp}.${ext}`;
}

export function mountTransferRoutes(app: Hono<AppEnv>): void {
  app.post('/utils/import/:collection', async (c) => {
    const ctx = await serviceContext(c);
    const collection = await checkImport(ctx, c.req.param('collection'));
    const contentType = c.req.header('content-type') ?? '';
    if (/^multipart\/form-data\b/i.test(contentType)) {
      let imported: number | null = null;
      await parseForm(contentType, limitedBody(c), ctx.config.maxPayloadSize, {
        async onFile(_fields, _storage, filename, type, data) {
          if (imported !== null) throw new InvalidPayloadError('Invalid payload. Send one file per import.', { field: 'file' });
          imported = await importStream(ctx, collection, formatOf(type, filename), data);
        },
      });
      if (imported === null) throw new InvalidPayloadError('Invalid payload. No file was uploaded.', { field: 'file' });
    } else {
      const format = rawFormatOf(contentType);
      await importStream(ctx, collection, format, limitedBody(c));
    }
    return c.body(null, 200);
  });

  app.get('/utils/export/:collection', async (c) => {
    const ctx = await serviceContext(c);
    const raw = parseQueryString(c);
    const format = exportFormatOf(raw.format);
    // No QUERY_LIMIT_MAX here: an export is paged by EXPORT_BATCH_SIZE and returns all rows unless limited.
    const query = queryOf(ctx.config, raw, { maxLimit: -1 });
    const collection = c.req.param('collection');
    const plan = await planExport(ctx, collection, query);
    const chunks = exportChunks(ctx, plan, format);
    // Read the first page before answering: until then a failure is still an error response.
    const first = await chunks.next();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (first.done) controller.close();
        else controller.enqueue(encoder.encode(first.value));
      },
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (err) {
          // Headers and some rows are out: the response can only be cut short (the client sees an incomplete body).
          if (ctx.config.logLevel !== 'silent') console.error(`export of ${collection} failed mid-stream:`, err);
          controller.error(err);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
    return new Response(body, {
      status: 200,
      headers: {
        'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
        'content-disposition': `attachment; filename="${attachmentName(collection, format)}"`,
        'cache-control': 'no-store',
      },
    });
  });
}
