/** POST /notify/trigger (Auth; admins or `create` on svc_notify_logs) and POST /notify/test-send (Admin). */
import type { Hono } from 'hono';
import { testSend } from '../../core/notify/test-send.ts';
import { triggerNotification } from '../../core/notify/trigger.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

export function mountNotifySendRoutes(app: Hono<AppEnv>): void {
  app.post('/notify/trigger', async (c) => {
    const body: unknown = await readJson(c);
    const ids = await triggerNotification(c.get('services'), await serviceContext(c), body);
    return c.json({ data: { log_ids: ids } });
  });
  app.post('/notify/test-send', async (c) => {
    const body: unknown = await readJson(c);
    return c.json({ data: await testSend(c.get('services'), await serviceContext(c), body) });
  });
}
