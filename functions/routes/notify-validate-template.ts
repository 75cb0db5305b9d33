/** Template checks (SPEC.md > Notification module): POST /notify/validate-template (`{template: string}` -> 200
 * `{data: {valid, errors: [{line, column?, message}]}}`; a missing or non-string template is 400) and the rendered
 * preview of a message being edited (core/notify/preview.ts): POST /notify/preview (JSON in and out) and POST
 * /notify/preview/frame, the same preview as a sandboxed HTML document for the Studio's preview frame (a form post
 * into the frame: `payload` is the JSON body; only from this origin, see previewFrame). */
import type { Context, Hono } from 'hono';
import { ForbiddenError, InvalidPayloadError, ServiceError } from '../../core/errors.ts';
import { previewMessage } from '../../core/notify/preview.ts';
import { validateTemplate } from '../../core/notify/template-validation.ts';
import { readJson, readJsonObject, readText } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { framedDocument, textDocument } from '../http/framed-document.ts';

/** The frame's body: a form post (multipart or urlencoded) whose `payload` field is the preview's JSON body. The API
 * reads no form anywhere else, because a cross-site form can post with the visitor's cookies (functions/http/body.ts):
 * here the browser must say the post comes from this origin (Sec-Fetch-Site, sent by every current browser), and the
 * endpoint changes nothing and answers a sandboxed document. */
async function previewFrameBody(c: Context<AppEnv>): Promise<unknown> {
  if (c.req.header('sec-fetch-site') !== 'same-origin') throw new ForbiddenError('The preview frame is only rendered for pages of this site.');
  const type = c.req.header('content-type') ?? '';
  if (!/^(multipart\/form-data|application\/x-www-form-urlencoded)\b/i.test(type)) {
    throw new InvalidPayloadError('Post the preview frame as a form with a "payload" field.');
  }
  const form = await new Response(await readText(c), { headers: { 'content-type': type } }).formData();
  const payload = form.get('payload');
  if (typeof payload !== 'string') throw new InvalidPayloadError('"payload" is required.', { field: 'payload' });
  try {
    return JSON.parse(payload);
  } catch {
    throw new InvalidPayloadError('"payload" must be JSON.', { field: 'payload' });
  }
}

export function mountNotifyValidateTemplateRoutes(app: Hono<AppEnv>): void {
  app.post('/notify/validate-template', async (c) => {
    const { template } = await readJsonObject(c);
    if (typeof template !== 'string') throw new InvalidPayloadError('"template" is required and must be a string.', { field: 'template' });
    return c.json({ data: validateTemplate(template) });
  });
  app.post('/notify/preview', async (c) => c.json({ data: await previewMessage(await serviceContext(c), await readJson(c)) }));
  app.post('/notify/preview/frame', async (c) => {
    const ctx = await serviceContext(c);
    let preview;
    try {
      preview = await previewMessage(ctx, await previewFrameBody(c));
    } catch (err) {
      // Shown where the preview would be, in words; the Studio also has the reason from POST /notify/preview.
      if (err instanceof ServiceError && err.status < 500) return framedDocument(c, textDocument(`This message cannot be shown: ${err.message}`), err.status);
      throw err;
    }
    return framedDocument(c, preview.channel === 'email' ? preview.content : textDocument(preview.content));
  });
}
