/** POST /notify/validate-template (SPEC.md > Notification module): `{template: string}` -> 200
 * `{data: {valid, errors: [{line, column?, message}]}}`; a missing or non-string template is 400. */
import type { Hono } from 'hono';
import { InvalidPayloadError } from '../../core/errors.ts';
import { validateTemplate } from '../../core/notify/template-validation.ts';
import { readJsonObject } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';

export function mountNotifyValidateTemplateRoutes(app: Hono<AppEnv>): void {
  app.post('/notify/validate-template', async (c) => {
    const { template } = await readJsonObject(c);
    if (typeof template !== 'string') throw new InvalidPayloadError('"template" is required and must be a string.', { field: 'template' });
    return c.json({ data: validateTemplate(template) });
  });
}
