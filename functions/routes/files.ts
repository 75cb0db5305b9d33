/** The JSON endpoints of files (SPEC.md > Files): GET /files, GET|PATCH|DELETE /files/{id}, PATCH and DELETE
 * /files with `{keys}` as Directus, and POST /files/import. Multipart POST /files and PATCH /files/{id} are the
 * container's (container/routes/uploads.ts). Mounted after GET /files/storage-locations, which :id must not
 * shadow. */
import type { Context, Hono } from 'hono';
import { assertAuthenticated } from '../../core/access/authenticated.ts';
import { deleteFile, deleteFiles } from '../../core/files/delete.ts';
import { importFile } from '../../core/files/import.ts';
import { fileRecords, listFiles, readFile } from '../../core/files/read.ts';
import { clientFields, updateFileRecord, updateFileRecords } from '../../core/files/records.ts';
import { assertCompleteFiles } from '../../core/files/rows.ts';
import { InvalidPayloadError } from '../../core/errors.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import { mountFolderRoutes } from './folders.ts';
import type { AppEnv } from '../http/env.ts';
import { body, bodyObject } from './items-write.ts';
import { cachedRequestQuery } from '../http/query-string.ts';

async function providersOf(c: Context<AppEnv>) {
  const ctx = await serviceContext(c);
  return { ctx, providers: await c.get('services').storage.providers(ctx.schema.version) };
}

async function written(c: Context<AppEnv>, keys: string | string[]): Promise<Response> {
  const text = await fileRecords(await serviceContext(c), keys, cachedRequestQuery(c));
  return text === null ? c.body(null, 204) : jsonText(c, `{"data":${text}}`);
}

function keysOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((k) => typeof k === 'string')) {
    throw new InvalidPayloadError('Invalid payload. "keys" must be a non-empty array of file ids.');
  }
  return value as string[];
}

export function mountFileRoutes(app: Hono<AppEnv>): void {
  mountFolderRoutes(app);
  app.get('/files', async (c) => jsonText(c, await listFiles(await serviceContext(c), cachedRequestQuery(c))));

  app.post('/files/import', async (c) => {
    const { ctx, providers } = await providersOf(c);
    const payload = bodyObject(await body(c));
    const id = await importFile(ctx, providers, payload.url, payload.data);
    return written(c, id);
  });

  app.get('/files/:id', async (c) => {
    const ctx = await serviceContext(c);
    assertAuthenticated(ctx.accountability);
    return jsonText(c, await readFile(ctx, c.req.param('id'), cachedRequestQuery(c)));
  });

  app.patch('/files/:id', async (c) => {
    const ctx = await serviceContext(c);
    const id = c.req.param('id');
    const fields = clientFields(bodyObject(await body(c)));
    await assertCompleteFiles(ctx, [id]);
    await updateFileRecord(ctx, id, fields, null);
    return written(c, id);
  });

  app.patch('/files', async (c) => {
    const ctx = await serviceContext(c);
    const payload = bodyObject(await body(c));
    const keys = keysOf(payload.keys);
    const fields = clientFields(payload.data);
    await assertCompleteFiles(ctx, keys);
    await updateFileRecords(ctx, keys, fields);
    return written(c, keys);
  });

  app.delete('/files/:id', async (c) => {
    const { ctx, providers } = await providersOf(c);
    const id = c.req.param('id');
    await assertCompleteFiles(ctx, [id], true);
    await deleteFile(ctx, providers, id);
    return c.body(null, 204);
  });

  app.delete('/files', async (c) => {
    const { ctx, providers } = await providersOf(c);
    const payload = await body(c);
    const keys = keysOf(Array.isArray(payload) ? payload : bodyObject(payload).keys);
    await assertCompleteFiles(ctx, keys);
    await deleteFiles(ctx, providers, keys);
    return c.body(null, 204);
  });
}
