/** GET /workflow-tasks, /workflow-tasks/count (the caller's tasks) and /workflow-tasks/all (admins). */
import type { Hono } from 'hono';
import { allTasks, countMyTasks, myTasks } from '../../core/workflow/inbox.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

const pageQuery = (q: Record<string, string>) => ({ limit: q.limit, page: q.page, offset: q.offset });

export function mountWorkflowTaskRoutes(app: Hono<AppEnv>): void {
  app.get('/workflow-tasks', async (c) => c.json(await myTasks(await serviceContext(c), pageQuery(c.req.query()))));
  app.get('/workflow-tasks/count', async (c) => c.json({ data: await countMyTasks(await serviceContext(c)) }));
  app.get('/workflow-tasks/all', async (c) => c.json(await allTasks(await serviceContext(c), pageQuery(c.req.query()))));
}
