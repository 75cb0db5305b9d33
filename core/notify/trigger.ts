/** POST /notify/trigger (SPEC.md > Notification module): validates everything (template published, channels known,
 * variables against the template's schema, recipients, scheduled_at) before writing; renders subject and content per
 * channel at trigger time; writes one log per channel in one transaction; wakes the workers after the commit.
 * Immediate in-app sends are delivered in that same transaction (svc_notifications rows; the log is `sent` at once);
 * a scheduled send is a pending log on every channel, in-app included, sent by the worker once due and cancellable
 * until then. Who may trigger: admins, and callers whose policies grant `create` on svc_notify_logs. */
import type { Transaction } from 'kysely';
import { requirePermission } from '../access/permissions.ts';
import type { ContextEvents, ServiceContext } from '../context.ts';
import { inTransaction, run, type Executor } from '../db/database.ts';
import { InvalidPayloadError } from '../errors.ts';
import type { ConfigPort, DatabasePort, QueuePort } from '../ports.ts';
import { systemContext } from '../system/service.ts';
import { CHANNEL_IDS, channelRecord, isChannel, type Channel } from './channels/registry.ts';
import { deliverInApp } from './inapp.ts';
import { parseJsonColumn } from './providers-store.ts';
import { emailList, recipientList, resolveRecipients } from './recipients.ts';
import { renderMessage, type Rendered } from './render/engine.ts';
import { validateVariables } from './render/variables.ts';
import { readSendSettings } from './send-settings.ts';
import { wakeAfterCommit } from './wake.ts';

const FIELDS = ['template_id', 'recipients', 'cc', 'bcc', 'variables', 'locale', 'channels', 'scheduled_at', 'metadata'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/;

interface TemplateRow {
  id: string; channels: unknown; cc_admin: boolean; variables_schema: unknown; layout_id: string | null; status: string;
  layout_content: string | null; layout_schema: unknown;
}

interface ContentRow { id: number; subject: string | null; content: string; locale: string; provider_id: number; enabled: boolean }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseScheduledAt(raw: unknown, now: number): Date | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string' || !ISO.test(raw) || Number.isNaN(Date.parse(raw))) {
    throw new InvalidPayloadError('"scheduled_at" must be an ISO 8601 date-time with a time zone', { field: 'scheduled_at' });
  }
  const at = new Date(raw);
  if (at.getTime() < now) throw new InvalidPayloadError('"scheduled_at" must not be in the past', { field: 'scheduled_at' });
  return at;
}

function parseChannels(raw: unknown): Channel[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || raw.length === 0) throw new InvalidPayloadError('"channels" must be a non-empty array', { field: 'channels' });
  for (const c of raw) {
    if (!isChannel(c)) throw new InvalidPayloadError(`Unknown channel ${JSON.stringify(c)}: one of ${CHANNEL_IDS.join(', ')}`, { field: 'channels' });
  }
  return [...new Set(raw as Channel[])];
}

async function selectContent(db: Executor, templateId: string, channel: Channel, locale: string): Promise<ContentRow | undefined> {
  // The channel's provider first (enabled primary, then enabled, then others), within it the locale, then `default`.
  const [row] = await run<ContentRow>(db, `select c.id, c.subject, c.content, c.locale, c.provider_id, p.enabled
    from svc_notify_template_contents c join svc_notify_providers p on p.id = c.provider_id
    where c.template_id = $1 and c.active and p.channel = $2 and c.locale in ($3, 'default')
    order by (p.enabled and p.is_primary) desc, p.enabled desc, p.id, (c.locale = $3) desc limit 1`, [templateId, channel, locale]);
  return row;
}

export async function triggerNotification(services: ConfigPort & DatabasePort & QueuePort, ctx: ServiceContext, raw: unknown): Promise<number[]> {
  if (!ctx.accountability.admin) await requirePermission(systemContext(ctx), 'svc_notify_logs', 'create');
  if (!isObject(raw)) throw new InvalidPayloadError('The body must be an object');
  for (const k of Object.keys(raw)) if (!FIELDS.includes(k)) throw new InvalidPayloadError(`"${k}" is not allowed`, { field: k });
  const templateId = raw.template_id;
  if (typeof templateId !== 'string' || templateId === '') throw new InvalidPayloadError('"template_id" is required', { field: 'template_id' });
  const recipients = recipientList(raw.recipients);
  const cc = emailList('cc', raw.cc);
  const bcc = emailList('bcc', raw.bcc);
  const variables = raw.variables ?? {};
  if (!isObject(variables)) throw new InvalidPayloadError('"variables" must be an object', { field: 'variables' });
  if (raw.locale !== undefined && raw.locale !== null && (typeof raw.locale !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(raw.locale))) {
    throw new InvalidPayloadError('"locale" must be a locale code such as en-US', { field: 'locale' });
  }
  const metadata = raw.metadata ?? null;
  if (metadata !== null && !isObject(metadata)) throw new InvalidPayloadError('"metadata" must be an object', { field: 'metadata' });
  const scheduledAt = parseScheduledAt(raw.scheduled_at, Date.now());
  const channels = parseChannels(raw.channels);

  const db = services.database.db;
  const prepared = await prepareTemplateSend(db, services.config.secret, {
    templateId, recipients, cc, bcc, variables, locale: typeof raw.locale === 'string' ? raw.locale : null, channels,
  });
  return inTransaction(db, async (trx: Transaction<any>) => {
    const { ids, pending } = await writeTemplateSend(trx, prepared, { sender: ctx.accountability.user ?? null, scheduledAt, metadata, events: ctx.events });
    if (pending) wakeAfterCommit(trx, services.queue);
    return ids;
  });
}

/** A send of a template, checked (published, variables, a content per channel) and rendered per channel. */
export interface PreparedSend {
  template: TemplateRow;
  locale: string;
  variables: Record<string, unknown>;
  cc: string[];
  bcc: string[];
  plans: { channel: Channel; inbox: boolean; copies: boolean; content: ContentRow; rendered: Rendered; to: string[] }[];
}

export interface TemplateSendInput {
  templateId: string;
  /** Email addresses or user ids. */
  recipients: string[];
  cc?: string[];
  bcc?: string[];
  variables: Record<string, unknown>;
  /** null: the default locale of the settings. */
  locale?: string | null;
  /** null: the template's channels (else the settings' default channels). */
  channels?: Channel[] | null;
}

/** Reads, checks and renders a template send in `db` (POST /notify/trigger, and a workflow's send_notification
 * step inside its own transaction); nothing is written. */
export async function prepareTemplateSend(db: Executor, secret: string, input: TemplateSendInput): Promise<PreparedSend> {
  const { templateId, recipients, variables } = input;
  const [template] = await run<TemplateRow>(db, `select t.id, t.channels, t.cc_admin, t.variables_schema, t.layout_id, t.status,
      l.content as layout_content, l.variables_schema as layout_schema
    from svc_notify_templates t left join svc_notify_layouts l on l.id = t.layout_id where t.id = $1`, [templateId]);
  if (!template) throw new InvalidPayloadError(`Template "${templateId}" doesn't exist`, { field: 'template_id' });
  if (template.status !== 'published') throw new InvalidPayloadError(`Template "${templateId}" is ${template.status}: only published templates can be triggered`, { field: 'template_id' });
  const settings = await readSendSettings(db, secret);
  const locale = input.locale ?? settings.default_locale;
  const own = parseJsonColumn(template.channels);
  const channels = input.channels ?? parseChannels(Array.isArray(own) && own.length ? own : settings.default_channels ?? ['email']) ?? ['email'];

  validateVariables(template.id, parseJsonColumn(template.variables_schema), variables);
  if (template.layout_id) validateVariables(`layout:${template.layout_id}`, parseJsonColumn(template.layout_schema), variables);
  const who = await resolveRecipients(db, recipients, channels.some((c) => channelRecord(c).recipients.needsUsers));
  const cc = input.cc ?? [];
  const ccAll = template.cc_admin ? [...new Set([...cc, ...settings.admin_emails])] : cc;

  const plans: PreparedSend['plans'] = [];
  for (const channel of channels) {
    const record = channelRecord(channel);
    const content = await selectContent(db, template.id, channel, locale);
    if (!content) throw new InvalidPayloadError(`Template "${template.id}" has no active content for the ${channel} channel (locale "${locale}" or "default")`, { field: 'channels' });
    const layout = template.layout_content && record.message.layout ? { kind: 'layout' as const, id: template.layout_id ?? '', text: template.layout_content } : null;
    const rendered = renderMessage({
      subject: content.subject ? { kind: 'subject', id: content.id, text: content.subject } : null,
      content: { kind: 'content', id: content.id, text: content.content },
      layout,
    }, variables);
    const to = record.recipients.of(who, recipients);
    plans.push({ channel, inbox: record.delivery.kind === 'inbox', copies: record.message.copies, content, rendered, to });
  }
  return { template, locale, variables, cc: ccAll, bcc: input.bcc ?? [], plans };
}

/** Writes a prepared send in `trx`: one log per channel; immediate in-app sends delivered at once. `pending` tells
 * whether logs wait for the notify worker (the caller wakes it after the commit, or its scan finds them). */
export async function writeTemplateSend(trx: Executor, prepared: PreparedSend, opts: { sender: string | null; scheduledAt: Date | null; metadata: unknown; events?: ContextEvents }): Promise<{ ids: number[]; pending: boolean }> {
  const { template, locale, variables, cc, bcc } = prepared;
  const { scheduledAt, metadata } = opts;
  const ids: number[] = [];
  let pending = false;
  for (const p of prepared.plans) {
    if (p.inbox && scheduledAt === null) {
      const { logId } = await deliverInApp(trx, {
        recipients: p.to, subject: p.rendered.subject || template.id, message: p.rendered.content, sender: opts.sender, events: opts.events,
        log: { template_id: template.id, provider_id: p.content.provider_id, locale, variables, metadata },
      });
      if (logId !== null) ids.push(logId);
      continue;
    }
    const [row] = await run<{ id: number }>(trx, `insert into svc_notify_logs (status, template_id, channel, provider_id, recipients, cc, bcc,
        locale, variables, subject_rendered, content_rendered, scheduled_at, metadata)
      values ('pending', $1, $2, $3, $4::json, $5::json, $6::json, $7, $8::json, $9, $10, $11, $12::json) returning id`,
    [template.id, p.channel, p.content.enabled ? p.content.provider_id : null, JSON.stringify(p.to),
      p.copies && cc.length ? JSON.stringify(cc) : null, p.copies && bcc.length ? JSON.stringify(bcc) : null,
      locale, JSON.stringify(variables), p.inbox ? p.rendered.subject || template.id : p.rendered.subject, p.rendered.content,
      scheduledAt, metadata === null || metadata === undefined ? null : JSON.stringify(metadata)]);
    ids.push(row.id);
    pending = true;
  }
  return { ids, pending };
}
