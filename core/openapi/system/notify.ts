/** The notification module (functions/routes/notify-*.ts). */
import { CHANNEL_CATALOG, CHANNEL_IDS } from '../../notify/channels/registry.ts';
import { LOG_STATUSES } from '../../notify/logs.ts';
import { LIST_PARAMETERS, ONE_PARAMETERS } from '../components.ts';
import { operation } from '../operation.ts';
import type { SchemaObject } from '../types.ts';
import { arrayOf, endpoint, freeObject, listOf, pathParam, type Endpoint, type SystemContext } from './endpoint.ts';

const str: SchemaObject = { type: 'string' };
const tag = 'Notify';

/** List, create (-> id), read, update (-> id), delete of one notify resource. */
function resource(ctx: SystemContext, path: string, collection: string, stem: string, noun: string): Endpoint[] {
  const record = ctx.record(collection);
  const key = ctx.key(collection);
  const id = pathParam('id', `${noun} id`, key);
  return [
    endpoint('get', path, operation({ id: `readNotify${stem}`, summary: `List ${noun}s`, tag, parameters: LIST_PARAMETERS, data: listOf(record), raw: true })),
    endpoint('post', path, operation({ id: `createNotify${stem}`, summary: `Create a ${noun}`, tag, body: record, data: key, unique: true })),
    endpoint('get', `${path}/{id}`, operation({
      id: `readSingleNotify${stem}`, summary: `Read a ${noun}`, tag, parameters: [id, ...ONE_PARAMETERS], data: record, pathParams: true,
    })),
    endpoint('patch', `${path}/{id}`, operation({
      id: `updateSingleNotify${stem}`, summary: `Update a ${noun}`, tag, parameters: [id], body: record, data: key, pathParams: true, unique: true,
    })),
    endpoint('delete', `${path}/{id}`, operation({ id: `deleteSingleNotify${stem}`, summary: `Delete a ${noun}`, tag, parameters: [id], status: 204, pathParams: true })),
  ];
}

const PREVIEW_BODY: SchemaObject = {
  type: 'object', required: ['content'],
  properties: {
    content: str, subject: { type: 'string', nullable: true }, channel: { type: 'string', enum: [...CHANNEL_IDS] },
    template_id: str, layout_id: { type: 'string', nullable: true }, layout: str, variables: freeObject(),
  },
};

export function notifyEndpoints(ctx: SystemContext): Endpoint[] {
  const settings = ctx.record('svc_notify_settings');
  const log = ctx.record('svc_notify_logs');
  const logId = pathParam('id', 'Log id', ctx.key('svc_notify_logs'));
  const templateId = pathParam('id', 'Template id', ctx.key('svc_notify_templates'));
  const content = ctx.record('svc_notify_template_contents');
  const contentId = pathParam('id', 'Template content id', ctx.key('svc_notify_template_contents'));
  return [
    endpoint('get', '/notify/settings', operation({ id: 'readNotifySettings', summary: 'Read the notification settings', tag, parameters: ONE_PARAMETERS, data: settings })),
    endpoint('patch', '/notify/settings', operation({
      id: 'updateNotifySettings', summary: 'Update the notification settings', tag, parameters: ONE_PARAMETERS, body: settings, data: settings, maybeEmpty: true,
    })),
    endpoint('get', '/notify/channels', operation({
      id: 'readNotifyChannels', summary: 'The channel catalogue (admin)', tag,
      data: arrayOf({ type: 'object', properties: { id: { type: 'string', enum: CHANNEL_CATALOG.map((c) => c.id) }, name: str, description: str, icon: str } }),
    })),
    ...resource(ctx, '/notify/providers', 'svc_notify_providers', 'Providers', 'provider'),
    endpoint('patch', '/notify/providers/{id}/primary', operation({
      id: 'promoteNotifyProvider', summary: 'Make a provider the primary of its channel', tag, pathParams: true,
      parameters: [pathParam('id', 'Provider id', ctx.key('svc_notify_providers'))], data: ctx.key('svc_notify_providers'),
    })),
    ...resource(ctx, '/notify/layouts', 'svc_notify_layouts', 'Layouts', 'layout'),
    ...resource(ctx, '/notify/templates', 'svc_notify_templates', 'Templates', 'template'),
    endpoint('get', '/notify/templates/{id}/contents', operation({
      id: 'readNotifyTemplateContents', summary: 'Content variants of a template', tag, parameters: [templateId, ...LIST_PARAMETERS],
      data: listOf(content), raw: true, pathParams: true,
    })),
    endpoint('post', '/notify/templates/{id}/contents', operation({
      id: 'createNotifyTemplateContent', summary: 'Add a content variant to a template', tag, parameters: [templateId], pathParams: true,
      body: content, data: ctx.key('svc_notify_template_contents'),
    })),
    endpoint('patch', '/notify/contents/{id}', operation({
      id: 'updateNotifyContent', summary: 'Update a content variant', tag, parameters: [contentId], pathParams: true,
      body: content, data: ctx.key('svc_notify_template_contents'),
    })),
    endpoint('delete', '/notify/contents/{id}', operation({ id: 'deleteNotifyContent', summary: 'Delete a content variant', tag, parameters: [contentId], status: 204, pathParams: true })),
    endpoint('get', '/notify/logs', operation({ id: 'readNotifyLogs', summary: 'List send logs', tag, parameters: LIST_PARAMETERS, data: listOf(log), raw: true })),
    endpoint('get', '/notify/logs/stats', operation({
      id: 'readNotifyLogStats', summary: 'Counts of logs per status', tag,
      data: {
        type: 'object', required: ['total', ...LOG_STATUSES],
        properties: Object.fromEntries(['total', ...LOG_STATUSES].map((k) => [k, { type: 'integer' }])),
      },
    })),
    endpoint('get', '/notify/logs/{id}', operation({ id: 'readSingleNotifyLogs', summary: 'Read a send log', tag, parameters: [logId, ...ONE_PARAMETERS], data: log, pathParams: true })),
    endpoint('get', '/notify/logs/{id}/events', operation({
      id: 'readNotifyLogEvents', summary: 'Delivery events of a send log, in time order', tag, parameters: [logId, ...LIST_PARAMETERS],
      data: listOf(ctx.record('svc_notify_delivery_events')), raw: true, pathParams: true,
    })),
    endpoint('get', '/notify/logs/{id}/content', operation({
      id: 'readNotifyLogContent', summary: 'The rendered content of a send log as a sandboxed HTML document (for a frame)', tag,
      parameters: [logId], pathParams: true, media: { type: 'text/html', schema: str },
    })),
    endpoint('patch', '/notify/logs/{id}/cancel', operation({ id: 'cancelNotifyLog', summary: 'Cancel a pending send', tag, parameters: [logId], data: ctx.key('svc_notify_logs'), pathParams: true })),
    endpoint('delete', '/notify/logs/{id}', operation({ id: 'deleteSingleNotifyLogs', summary: 'Delete a send log', tag, parameters: [logId], status: 204, pathParams: true })),
    endpoint('post', '/notify/trigger', operation({
      id: 'triggerNotification', summary: 'Send a template to recipients', tag,
      body: {
        type: 'object', required: ['template_id', 'recipients'],
        properties: {
          template_id: str, recipients: arrayOf(str), cc: arrayOf(str), bcc: arrayOf(str), variables: freeObject(), locale: str,
          channels: arrayOf(str), scheduled_at: { type: 'string', format: 'date-time' }, metadata: freeObject(),
        },
      },
      data: { type: 'object', properties: { log_ids: arrayOf({ type: 'integer' }) } },
    })),
    endpoint('post', '/notify/test-send', operation({
      id: 'testSendNotification', summary: 'Send a test message through a provider (admin)', tag,
      body: {
        type: 'object', required: ['provider_id', 'recipients', 'content'],
        properties: { provider_id: { type: 'integer' }, recipients: arrayOf(str), subject: str, content: str, metadata: freeObject() },
      },
      data: { type: 'object', properties: { success: { type: 'boolean' }, message: str } },
    })),
    endpoint('post', '/notify/validate-template', operation({
      id: 'validateNotifyTemplate', summary: 'Check a template\'s syntax', tag,
      body: { type: 'object', required: ['template'], properties: { template: str } },
      data: { type: 'object', properties: { valid: { type: 'boolean' }, errors: arrayOf(freeObject()) } },
    })),
    endpoint('post', '/notify/preview', operation({
      id: 'previewNotification', summary: 'Render a message as a send would, without sending', tag,
      description: 'The layout is `layout` (text), `layout_id` (stored; null: none) or the template\'s; with `template_id` the variables are '
        + 'checked against its variables_schema and a failure is reported in `variables_error`.',
      body: PREVIEW_BODY,
      data: {
        type: 'object', required: ['channel', 'subject', 'content', 'variables_error'],
        properties: { channel: { type: 'string', enum: [...CHANNEL_IDS] }, subject: str, content: str, variables_error: { type: 'string', nullable: true } },
      },
    })),
    endpoint('post', '/notify/preview/frame', operation({
      id: 'previewNotificationFrame', summary: 'The same preview as a sandboxed HTML document, for a frame (a form post from this origin)', tag,
      content: {
        'multipart/form-data': { type: 'object', required: ['payload'], properties: { payload: { type: 'string', description: 'The JSON body of POST /notify/preview' } } },
      },
      media: { type: 'text/html', schema: str },
    })),
    endpoint('post', '/notify/webhooks/{key}', operation({
      id: 'notifyWebhook', summary: 'Delivery report from a provider (verified by its webhook secret)', tag, anonymous: true,
      parameters: [pathParam('key', 'Adapter key (provider type or channel)')], pathParams: true, body: freeObject('Provider payload'),
      data: { type: 'object', properties: { ok: { type: 'boolean' } } }, raw: true,
    })),
  ];
}
