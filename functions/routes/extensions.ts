/** GET /extensions, /extensions/{id} (Auth) and /extension-settings (Admin; `extension_key` narrows it, as a
 * parameter or as filter[extension_key][_eq]). No route toggles an extension: the flag is read at boot. */
import type { Hono } from 'hono';
import { listExtensions, listExtensionSettings, readExtension } from '../../core/extensions/records.ts';
import { InvalidQueryError } from '../../core/errors.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

export function mountExtensionRoutes(app: Hono<AppEnv>): void {
  app.get('/extensions', async (c) => c.json({ data: await listExtensions(await serviceContext(c)) }));
  app.get('/extensions/:id', async (c) => c.json({ data: await readExtension(await serviceContext(c), c.req.param('id')) }));
  app.get('/extension-settings', async (c) => {
    const key = c.req.query('extension_key') ?? c.req.query('filter[extension_key][_eq]') ?? null;
    if (key !== null && (key === '' || key.length > 255)) throw new InvalidQueryError('"extension_key" must be a non-empty string.');
    return c.json({ data: await listExtensionSettings(await serviceContext(c), key) });
  });
}
