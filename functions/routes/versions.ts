/** /versions (SPEC.md > Endpoints > Versions; Directus' /versions save and compare). The rules live in
 * core/versions; every route is in AUTH_ROUTES (anonymous -> 401). */
import type { Hono } from 'hono';
import { compareVersion, listVersions, readVersion } from '../../core/versions/read.ts';
import { createVersion } from '../../core/versions/create.ts';
import { patchVersion, saveVersion } from '../../core/versions/update.ts';
import { submitVersion } from '../../core/versions/submit.ts';
import { deleteVersion } from '../../core/versions/remove.ts';
import { promoteByCaller } from '../../core/versions/promote.ts';
import { readJson } from '../http/body.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { requestQuery } from '../http/query-string.ts';

export function mountVersionRoutes(app: Hono<AppEnv>): void {
  app.post('/versions', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createVersion(ctx, await readJson(c)) });
  });

  app.get('/versions', async (c) => jsonText(c, await listVersions(await serviceContext(c), requestQuery(c))));

  app.get('/versions/:id', async (c) => jsonText(c, await readVersion(await serviceContext(c), c.req.param('id'), requestQuery(c))));

  app.get('/versions/:id/compare', async (c) => c.json({ data: await compareVersion(await serviceContext(c), c.req.param('id')) }));

  app.patch('/versions/:id', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await patchVersion(ctx, c.req.param('id'), await readJson(c)) });
  });

  app.post('/versions/:id/save', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await saveVersion(ctx, c.req.param('id'), await readJson(c)) });
  });

  app.post('/versions/:id/submit', async (c) => c.json({ data: await submitVersion(await serviceContext(c), c.req.param('id')) }));

  app.post('/versions/:id/promote', async (c) => {
    await promoteByCaller(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });

  app.delete('/versions/:id', async (c) => {
    await deleteVersion(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
