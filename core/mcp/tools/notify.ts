/** send_notification: a notification template sent through its channels, through the notification service (admins, or
 * create permission on svc_notify_logs), as POST /notify/trigger. */
import { z } from 'zod';
import { triggerNotification } from '../../notify/trigger.ts';
import { defineTool } from '../tool.ts';

export const sendNotificationTool = defineTool({
  name: 'send_notification',
  title: 'Send a notification template',
  description: 'Sends a published notification template (email, chat, in-app) to recipients, with its variables. Answers '
    + 'the ids of the delivery logs (one per channel).',
  input: {
    template_id: z.string().min(1).max(255),
    recipients: z.array(z.string().min(1).max(320)).min(1).max(100).describe('Email addresses or user ids.'),
    variables: z.record(z.string(), z.unknown()).optional().describe('The template\'s variables.'),
    locale: z.string().max(32).optional(),
    channels: z.array(z.string().max(32)).max(10).optional().describe('Instead of the template\'s channels.'),
    scheduled_at: z.string().max(64).optional().describe('ISO 8601 time to send at.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(call, args) {
    const body: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) if (v !== undefined) body[k] = v;
    return { data: { log_ids: await triggerNotification(call.services, call.ctx, body) } };
  },
});
