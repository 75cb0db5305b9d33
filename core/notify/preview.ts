/** POST /notify/preview: a message rendered exactly as POST /notify/trigger renders it (the same engine, options and
 * layout rule: render/engine.ts, the channel record's `message.layout`), from text being edited, without sending or
 * writing anything. For the Studio's live preview and for API users checking a template before they save it.
 *
 * Body: `content` (required) and `subject` (template text); `channel` (default: the template's first channel, else
 * email); the layout as `layout` (layout text being edited) or `layout_id` (a stored layout; null: none), else the
 * template's own when `template_id` is given; `variables` (an object). With `template_id`, the variables are also
 * checked against the template's (and its layout's) variables_schema as a trigger checks them; a failure is reported
 * in `variables_error` (the preview still renders), since variables being typed are often incomplete. Text that does
 * not compile is 400, as it would be on save.
 *
 * Who: admins, or callers who may read svc_notify_templates; a stored template or layout is read through the items
 * service with the caller's permissions (row filters apply; one they may not see is 403). */
import { requirePermission } from '../access/permissions.ts';
import type { ServiceContext } from '../context.ts';
import { InvalidPayloadError } from '../errors.ts';
import { systemContext } from '../system/service.ts';
import { oneRecord } from './admin-records.ts';
import { CHANNEL_IDS, channelRecord, isChannel, type Channel } from './channels/registry.ts';
import { bodyObject, optionalObject, optionalString, optionalText, rejectUnknown, requiredString } from './payload-fields.ts';
import { parseJsonColumn } from './providers-store.ts';
import { renderMessage, type Source } from './render/engine.ts';
import { validateVariables } from './render/variables.ts';

const FIELDS = ['template_id', 'layout_id', 'layout', 'channel', 'subject', 'content', 'variables'];
const MAX_TEXT = 1_000_000;

export interface Preview {
  channel: Channel;
  subject: string;
  content: string;
  /** Why a trigger with these variables would be refused (null: it would not). */
  variables_error: string | null;
}

interface StoredLayout { id: string; content: string; variables_schema: unknown }

async function storedLayout(ctx: ServiceContext, id: string): Promise<StoredLayout> {
  const row = await oneRecord(ctx, 'svc_notify_layouts', id, { fields: ['id', 'content', 'variables_schema'] }, 'Layout');
  return { id, content: String(row.content ?? ''), variables_schema: parseJsonColumn(row.variables_schema) };
}

function variablesError(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (err) {
    if (err instanceof InvalidPayloadError) return err.message;
    throw err;
  }
}

export async function previewMessage(ctx: ServiceContext, raw: unknown): Promise<Preview> {
  if (!ctx.accountability.admin) await requirePermission(systemContext(ctx), 'svc_notify_templates', 'read');
  const input = bodyObject(raw);
  rejectUnknown(input, FIELDS);
  const content = requiredString('content', input.content, MAX_TEXT);
  const subject = optionalText('subject', input.subject) ?? null;
  const layoutText = optionalString('layout', input.layout, MAX_TEXT);
  const layoutId = optionalString('layout_id', input.layout_id);
  if (typeof layoutText === 'string' && typeof layoutId === 'string') {
    throw new InvalidPayloadError('Give "layout" (text) or "layout_id", not both.', { field: 'layout' });
  }
  const variables = optionalObject('variables', input.variables) ?? {};
  if (input.channel !== undefined && !isChannel(input.channel)) {
    throw new InvalidPayloadError(`"channel" must be one of ${CHANNEL_IDS.join(', ')}.`, { field: 'channel' });
  }
  const templateId = optionalString('template_id', input.template_id);

  let template: { id: string; layout_id: string | null; channels: Channel[]; variables_schema: unknown } | null = null;
  if (typeof templateId === 'string') {
    const row = await oneRecord(ctx, 'svc_notify_templates', templateId, { fields: ['id', 'layout_id', 'channels', 'variables_schema'] }, 'Template');
    const channels = parseJsonColumn(row.channels);
    template = {
      id: templateId,
      layout_id: typeof row.layout_id === 'string' ? row.layout_id : null,
      channels: Array.isArray(channels) ? channels.filter(isChannel) : [],
      variables_schema: parseJsonColumn(row.variables_schema),
    };
  }
  const channel: Channel = isChannel(input.channel) ? input.channel : template?.channels[0] ?? 'email';

  // The layout: the text being edited, else the one named, else the template's (layout_id null: none).
  const wantedId = layoutId !== undefined ? layoutId : template?.layout_id ?? null;
  const stored = typeof layoutText !== 'string' && wantedId ? await storedLayout(ctx, wantedId) : null;
  let layout: Source | null = null;
  if (channelRecord(channel).message.layout) {
    if (typeof layoutText === 'string') layout = { kind: 'layout', id: '', text: layoutText, transient: true };
    else if (stored) layout = { kind: 'layout', id: stored.id, text: stored.content };
  }

  const variables_error = template
    ? variablesError(() => {
      validateVariables(template.id, template.variables_schema, variables);
      if (stored) validateVariables(`layout:${stored.id}`, stored.variables_schema, variables);
    })
    : null;
  const rendered = renderMessage({
    subject: subject ? { kind: 'subject', id: '', text: subject, transient: true } : null,
    content: { kind: 'content', id: '', text: content, transient: true },
    layout,
  }, variables);
  // An inbox notice always has a subject: the template id when none renders (as trigger writes it).
  const inbox = channelRecord(channel).delivery.kind === 'inbox';
  return { channel, subject: rendered.subject || (inbox && template ? template.id : rendered.subject), content: rendered.content, variables_error };
}
