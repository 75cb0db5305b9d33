/** /schedules: scheduled publishing (docs/versions-and-workflow.md > Scheduled publishing). The rules live in
 * core/publishing; the scheduler itself runs in the container half (container/main.ts), never here. Every route is
 * in AUTH_ROUTES (anonymous -> 401). */
import type { Hono } from 'hono';
import { listSchedules, readSchedule } from '../../core/publishing/read.ts';
import { cancelSchedule, createSchedule, rescheduleSchedule } from '../../core/publishing/service.ts';
import { readJson } from '../http/body.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { requestQuery } from '../http/query-string.ts';

export function mountScheduleRoutes(app: Hono<AppEnv>): void {
  app.get('/schedules', async (c) => jsonText(c, await listSchedules(await serviceContext(c), requestQuery(c))));

  app.post('/schedules', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await createSchedule(ctx, await readJson(c)) });
  });

  app.get('/schedules/:id', async (c) => jsonText(c, await readSchedule(await serviceContext(c), c.req.param('id'), requestQuery(c))));

  app.patch('/schedules/:id', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await rescheduleSchedule(ctx, c.req.param('id'), await readJson(c)) });
  });

  app.post('/schedules/:id/cancel', async (c) => c.json({ data: await cancelSchedule(await serviceContext(c), c.req.param('id')) }));
}
