/** GET /notify/logs, GET /notify/logs/stats, GET /notify/logs/{id}, PATCH /notify/logs/{id}/cancel,
 * DELETE /notify/logs/{id} (SPEC.md > Notification module; rules in core/notify/logs.ts). /stats is registered
 * before /{id}. */
import type { Hono } from 'hono';
import { cancelLog, deleteLog, listLogs, logStats, readLog } from '../../core/notify/logs.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { cachedRequestQuery } from '../http/query-string.ts';

export function mountNotifyLogRoutes(app: Hono<AppEnv>): void {
  app.get('/notify/logs', async (c) => jsonText(c, await listLogs(await serviceContext(c), cachedRequestQuery(c))));
  app.get('/notify/logs/stats', async (c) => c.json({ data: await logStats(await serviceContext(c)) }));
  app.get('/notify/logs/:id', async (c) => jsonText(c, await readLog(await serviceContext(c), c.req.param('id'), cachedRequestQuery(c))));
  app.patch('/notify/logs/:id/cancel', async (c) => c.json({ data: await cancelLog(await serviceContext(c), c.req.param('id')) }));
  app.delete('/notify/logs/:id', async (c) => {
    await deleteLog(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
