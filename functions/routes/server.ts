import type { Hono } from 'hono';
import { run } from '../../core/db/database.ts';
import type { AppEnv } from '../http/env.ts';

export function mountServerRoutes(app: Hono<AppEnv>): void {
  app.get('/server/ping', (c) => c.text('pong'));

  app.get('/server/health', async (c) => {
    const { database } = c.get('services');
    try {
      await Promise.race([
        run(database.db, 'select 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('database timeout')), 3000).unref()),
      ]);
      return c.json({ status: 'ok' });
    } catch {
      return c.json({ status: 'error', checks: { database: [{ status: 'error', output: 'Database did not answer' }] } }, 503);
    }
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
