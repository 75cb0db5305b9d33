/** GET /notify/logs, GET /notify/logs/stats, GET /notify/logs/{id}, PATCH /notify/logs/{id}/cancel,
 * DELETE /notify/logs/{id} (SPEC.md > Notification module; rules in core/notify/logs.ts). /stats is registered
 * before /{id}. Also read-only: GET /notify/logs/{id}/events (the log's delivery events) and GET
 * /notify/logs/{id}/content (its rendered content as a sandboxed HTML document, for the Studio's frame). */
import type { Hono } from 'hono';
import { cancelLog, deleteLog, listLogEvents, listLogs, logStats, readLog, readLogContent } from '../../core/notify/logs.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { framedDocument, textDocument } from '../http/framed-document.ts';
import { cachedRequestQuery } from '../http/query-string.ts';

export function mountNotifyLogRoutes(app: Hono<AppEnv>): void {
  app.get('/notify/logs', async (c) => jsonText(c, await listLogs(await serviceContext(c), cachedRequestQuery(c))));
  app.get('/notify/logs/stats', async (c) => c.json({ data: await logStats(await serviceContext(c)) }));
  app.get('/notify/logs/:id', async (c) => jsonText(c, await readLog(await serviceContext(c), c.req.param('id'), cachedRequestQuery(c))));
  app.get('/notify/logs/:id/events', async (c) => jsonText(c, await listLogEvents(await serviceContext(c), c.req.param('id'), cachedRequestQuery(c))));
  app.get('/notify/logs/:id/content', async (c) => {
    const log = await readLogContent(await serviceContext(c), c.req.param('id'));
    return framedDocument(c, log.channel === 'email' ? log.content : textDocument(log.content));
  });
  app.patch('/notify/logs/:id/cancel', async (c) => c.json({ data: await cancelLog(await serviceContext(c), c.req.param('id')) }));
  app.delete('/notify/logs/:id', async (c) => {
    await deleteLog(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
