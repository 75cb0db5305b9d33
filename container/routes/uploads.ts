/** Multipart uploads (SPEC.md > Files): POST /files and PATCH /files/{id} with a multipart body. A JSON
 * PATCH /files/{id} falls through to the functions half (functions/routes/files.ts). Answers the written
 * records as the caller may read them (`{data}` one, `{data: [...]}` several), 204 when it may read none. */
import type { Context, Hono } from 'hono';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { replaceFile, uploadFiles, type UploadInput } from '../../core/files/upload.ts';
import { fileRecords } from '../../core/files/read.ts';
import { InvalidPayloadError } from '../../core/errors.ts';
import { jsonText, serviceContext } from '../../functions/http/context.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { cachedRequestQuery } from '../../functions/http/query-string.ts';

function isMultipart(c: Context<AppEnv>): boolean {
  return /^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '');
}

function uploadInput(c: Context<AppEnv>): UploadInput {
  const body = c.req.raw.body;
  if (!body) throw new InvalidPayloadError('Invalid payload. No file was uploaded.', { field: 'file' });
  return { contentType: c.req.header('content-type') ?? '', body: Readable.fromWeb(body as WebReadableStream<Uint8Array>) };
}

async function answer(c: Context<AppEnv>, keys: string | string[]): Promise<Response> {
  const text = await fileRecords(await serviceContext(c), keys, cachedRequestQuery(c));
  return text === null ? c.body(null, 204) : jsonText(c, `{"data":${text}}`);
}

export function mountUploadRoutes(app: Hono<AppEnv>): void {
  app.post('/files', async (c) => {
    const ctx = await serviceContext(c);
    const providers = await c.get('services').storage.providers(ctx.schema.version);
    const ids = await uploadFiles(ctx, providers, uploadInput(c));
    return answer(c, ids.length === 1 ? ids[0] : ids);
  });
  app.patch('/files/:id', async (c, next) => {
    if (!isMultipart(c)) return next();
    const ctx = await serviceContext(c);
    const providers = await c.get('services').storage.providers(ctx.schema.version);
    const id = await replaceFile(ctx, providers, c.req.param('id'), uploadInput(c));
    return answer(c, id);
  });
}
