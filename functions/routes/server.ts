import type { Hono } from 'hono';
import { run } from '../../core/db/database.ts';
import type { AppEnv } from '../http/env.ts';

/** True when `probe` succeeds within 3 s. */
async function answers(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), 3000); }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function mountServerRoutes(app: Hono<AppEnv>): void {
  app.get('/server/ping', (c) => c.text('pong'));

  // `ok`; `warn` (200) while the shared store (Redis) does not answer: the instance still serves, degraded;
  // `error` (503) while the database does not answer within 3 s.
  app.get('/server/health', async (c) => {
    const { database, store } = c.get('services');
    const [db, shared] = await Promise.all([
      answers(() => run(database.db, 'select 1')),
      store.kind === 'redis' ? answers(() => store.get('health')) : Promise.resolve(true),
    ]);
    if (!db) {
      const checks: Record<string, unknown> = { database: [{ status: 'error', output: 'Database did not answer' }] };
      if (!shared) checks.sharedStore = [{ status: 'warn', output: 'Shared store did not answer' }];
      return c.json({ status: 'error', checks }, 503);
    }
    if (!shared) return c.json({ status: 'warn', checks: { sharedStore: [{ status: 'warn', output: 'Shared store did not answer' }] } });
    return c.json({ status: 'ok' });
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
