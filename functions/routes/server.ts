import type { Hono } from 'hono';
import { readPublicProjectInfo } from '../../core/system/public-info.ts';
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
    const { name, url, ...publicFace } = await readPublicProjectInfo(database.db, config.projectName);
    return c.json({ data: { project: { name, url, node_env: config.nodeEnv, ...publicFace } } });
  });
}
