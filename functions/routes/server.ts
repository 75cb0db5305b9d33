import type { Hono } from 'hono';
import { run } from '../../core/db/database.ts';
import { checkHealth } from '../../core/system/health.ts';
import type { AppEnv } from '../http/env.ts';

export function mountServerRoutes(app: Hono<AppEnv>): void {
  app.get('/server/ping', (c) => c.text('pong'));

  app.get('/server/health', async (c) => {
    const report = await checkHealth(c.get('services'));
    return c.json(report.body, report.httpStatus);
  });

  app.get('/server/info', async (c) => {
    const { database, config } = c.get('services');
    const [settings] = await run<{ project_name: string; project_url: string | null }>(database.db,
      'select project_name, project_url from svc_settings where id = 1');
    return c.json({
      data: {
        project: { name: settings?.project_name ?? config.projectName, url: settings?.project_url ?? null, node_env: config.nodeEnv },
      },
    });
  });
}
