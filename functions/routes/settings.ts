/** GET /settings and PATCH /settings: the settings singleton (Directus' shapes: PATCH answers the settings). */
import type { Hono } from 'hono';
import { readSettings, updateSettings } from '../../core/system/settings.ts';
import { jsonText, serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { body } from './items-write.ts';
import { cachedRequestQuery } from '../http/query-string.ts';

export function mountSettingsRoutes(app: Hono<AppEnv>): void {
  app.get('/settings', async (c) => jsonText(c, await readSettings(await serviceContext(c), cachedRequestQuery(c))));

  app.patch('/settings', async (c) => {
    const services = c.get('services');
    const text = await updateSettings(await serviceContext(c), await body(c), cachedRequestQuery(c), async () => { await services.schema.invalidate(); });
    return text === null ? c.body(null, 204) : jsonText(c, text);
  });
}
