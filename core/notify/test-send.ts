/** POST /notify/test-send (Admin): sends one message synchronously through the given provider, bypassing logs and
 * templates, and answers whether the provider accepted it. A provider refusing is an answer, not an error:
 * 200 {success: false, message}. Through an in-app provider the test notice is an inbox notification (from the
 * caller) for each recipient that is a user (a user id, or a user's email address); none -> success false. */
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import type { ConfigPort, DatabasePort } from '../ports.ts';
import { channelRecord } from './channels/registry.ts';
import { createSender, specOfProvider } from './channels/resolve.ts';
import { loadProvider } from './providers-store.ts';
import { readSendSettings } from './send-settings.ts';

const FIELDS = ['provider_id', 'recipients', 'subject', 'content', 'metadata'];

export async function testSend(services: ConfigPort & DatabasePort, ctx: ServiceContext, raw: unknown): Promise<{ success: boolean; message: string }> {
  if (!ctx.accountability.admin) throw new ForbiddenError();
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidPayloadError('The body must be an object');
  const body = raw as Record<string, unknown>;
  for (const k of Object.keys(body)) if (!FIELDS.includes(k)) throw new InvalidPayloadError(`"${k}" is not allowed`, { field: k });
  const id = typeof body.provider_id === 'string' && /^\d+$/.test(body.provider_id) ? Number(body.provider_id) : body.provider_id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new InvalidPayloadError('"provider_id" is required (an integer)', { field: 'provider_id' });
  const subject = body.subject ?? '';
  if (typeof subject !== 'string') throw new InvalidPayloadError('"subject" must be a string', { field: 'subject' });
  if (typeof body.content !== 'string' || body.content === '') throw new InvalidPayloadError('"content" is required', { field: 'content' });
  if (body.metadata !== undefined && body.metadata !== null && (typeof body.metadata !== 'object' || Array.isArray(body.metadata))) {
    throw new InvalidPayloadError('"metadata" must be an object', { field: 'metadata' });
  }
  const db = services.database.db;
  const provider = await loadProvider(db, services.config.secret, id);
  if (!provider) throw new InvalidPayloadError(`Provider ${id} doesn't exist`, { field: 'provider_id' });
  const channel = channelRecord(provider.channel);
  const recipients = channel.recipients.test(body.recipients);
  if (channel.delivery.kind === 'inbox') return channel.delivery.test(db, ctx.accountability.user ?? null, recipients, subject, body.content);
  const settings = await readSendSettings(db, services.config.secret);
  let sender;
  try {
    sender = createSender(specOfProvider(provider, settings, services.config));
  } catch (err) {
    return { success: false, message: (err as Error).message };
  }
  try {
    const result = await sender.send({ to: recipients, cc: [], bcc: [], subject, content: body.content });
    return { success: true, message: result.messageId ? `Sent (message id ${result.messageId}).` : 'Sent.' };
  } catch (err) {
    return { success: false, message: err instanceof Error ? err.message : String(err) };
  } finally {
    sender.close();
  }
}
