/** The notification admin API (SPEC.md > Notification module): settings, channels, providers, layouts,
 * templates and template contents. Rules live in core/notify; handlers read the request and shape `{data}`.
 * Writes answer the written id (`{data: <id>}`), as SPEC.md asks of providers; settings answer the settings. */
import type { Context, Hono } from 'hono';
import { requireAdmin } from '../../core/notify/admin-access.ts';
import { CHANNEL_CATALOG } from '../../core/notify/channel-catalog.ts';
import { createContent, deleteContent, listContents, updateContent } from '../../core/notify/contents.ts';
import { createLayout, deleteLayout, listLayouts, readLayout, updateLayout } from '../../core/notify/layouts.ts';
import {
  createProvider, deleteProvider, listProviders, promoteProvider, readProvider, updateProvider,
} from '../../core/notify/providers-admin.ts';
import { readNotifySettings, updateNotifySettings } from '../../core/notify/settings.ts';
import { createTemplate, deleteTemplate, listTemplates, readTemplate, updateTemplate } from '../../core/notify/templates.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { body } from './items-write.ts';
import { cachedRequestQuery } from '../http/query-string.ts';

const data = (c: Context<AppEnv>, value: unknown): Response => c.json({ data: value });

export function mountNotifyAdminRoutes(app: Hono<AppEnv>): void {
  app.get('/notify/settings', async (c) => data(c, await readNotifySettings(await serviceContext(c), cachedRequestQuery(c))));
  app.patch('/notify/settings', async (c) => {
    const shown = await updateNotifySettings(await serviceContext(c), await body(c), cachedRequestQuery(c));
    return shown === null ? c.body(null, 204) : data(c, shown);
  });

  app.get('/notify/channels', async (c) => {
    requireAdmin(await serviceContext(c));
    return data(c, CHANNEL_CATALOG);
  });

  app.get('/notify/providers', async (c) => c.json(await listProviders(await serviceContext(c), cachedRequestQuery(c))));
  app.post('/notify/providers', async (c) => data(c, await createProvider(await serviceContext(c), await body(c))));
  app.get('/notify/providers/:id', async (c) => data(c, await readProvider(await serviceContext(c), c.req.param('id'), cachedRequestQuery(c))));
  app.patch('/notify/providers/:id/primary', async (c) => data(c, await promoteProvider(await serviceContext(c), c.req.param('id'))));
  app.patch('/notify/providers/:id', async (c) => data(c, await updateProvider(await serviceContext(c), c.req.param('id'), await body(c))));
  app.delete('/notify/providers/:id', async (c) => {
    await deleteProvider(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });

  app.get('/notify/layouts', async (c) => c.json(await listLayouts(await serviceContext(c), cachedRequestQuery(c))));
  app.post('/notify/layouts', async (c) => data(c, await createLayout(await serviceContext(c), await body(c))));
  app.get('/notify/layouts/:id', async (c) => data(c, await readLayout(await serviceContext(c), c.req.param('id'), cachedRequestQuery(c))));
  app.patch('/notify/layouts/:id', async (c) => data(c, await updateLayout(await serviceContext(c), c.req.param('id'), await body(c))));
  app.delete('/notify/layouts/:id', async (c) => {
    await deleteLayout(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });

  app.get('/notify/templates', async (c) => c.json(await listTemplates(await serviceContext(c), cachedRequestQuery(c))));
  app.post('/notify/templates', async (c) => data(c, await createTemplate(await serviceContext(c), await body(c))));
  app.get('/notify/templates/:id', async (c) => data(c, await readTemplate(await serviceContext(c), c.req.param('id'), cachedRequestQuery(c))));
  app.patch('/notify/templates/:id', async (c) => data(c, await updateTemplate(await serviceContext(c), c.req.param('id'), await body(c))));
  app.delete('/notify/templates/:id', async (c) => {
    await deleteTemplate(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
  app.get('/notify/templates/:id/contents', async (c) => c.json(await listContents(await serviceContext(c), c.req.param('id'), cachedRequestQuery(c))));
  app.post('/notify/templates/:id/contents', async (c) => data(c, await createContent(await serviceContext(c), c.req.param('id'), await body(c))));
  app.patch('/notify/contents/:id', async (c) => data(c, await updateContent(await serviceContext(c), c.req.param('id'), await body(c))));
  app.delete('/notify/contents/:id', async (c) => {
    await deleteContent(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
}
