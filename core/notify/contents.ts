/** Template contents (SPEC.md > svc_notify_template_contents): one variant of a template per provider and
 * locale. provider_id is required and its provider's channel must be one of the template's channels; locale
 * defaults to "default"; subject (optional) and content (required) must compile as Handlebars templates;
 * metadata is an object; active defaults to true. (template, provider, locale) is unique: 409. The legacy
 * `provider` column is filled with the provider's channel. template_id is fixed at creation. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { InvalidPayloadError, NotFoundError, RecordNotUniqueError } from '../errors.ts';
import type { QueryInput } from '../items/read.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import type { Query } from '../query/types.ts';
import { authorize } from './admin-access.ts';
import { inNotifyTransaction, listRecords, notFound, type Row } from './admin-records.ts';
import { bodyObject, intId, optionalBoolean, optionalObject, optionalText, rejectUnknown, requiredString } from './payload-fields.ts';
import { parseJsonColumn } from './providers-store.ts';
import { assertTemplateCompiles } from './syntax-check.ts';

const COLLECTION = 'svc_notify_template_contents';
const LABEL = 'Template content';
const WRITABLE = ['provider_id', 'locale', 'subject', 'content', 'metadata', 'active'];
const LOCALE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
const MAX_TEXT = 1_000_000;

async function templateChannels(ctx: ServiceContext, templateId: string, lock: boolean): Promise<string[] | null> {
  const [row] = await run<{ channels: unknown }>(ctx.db, `select channels from svc_notify_templates where id = $1${lock ? ' for share' : ''}`, [templateId]);
  if (!row) return null;
  const channels = parseJsonColumn(row.channels);
  return Array.isArray(channels) ? channels.map(String) : [];
}

async function providerChannel(ctx: ServiceContext, providerId: unknown, channels: string[]): Promise<{ id: number; channel: string }> {
  if (typeof providerId !== 'number' || !Number.isSafeInteger(providerId) || providerId <= 0) {
    throw new InvalidPayloadError('"provider_id" is required and must be a provider id.', { field: 'provider_id' });
  }
  const [row] = await run<{ channel: string }>(ctx.db, 'select channel from svc_notify_providers where id = $1 for share', [providerId]);
  if (!row) throw new InvalidPayloadError(`"provider_id": provider ${providerId} doesn't exist.`, { field: 'provider_id' });
  if (!channels.includes(row.channel)) {
    throw new InvalidPayloadError(`"provider_id": provider ${providerId} sends on channel "${row.channel}", which is not one of the template's channels (${channels.join(', ')}).`, { field: 'provider_id' });
  }
  return { id: providerId, channel: row.channel };
}

function validateFields(input: Row, creating: boolean): Row {
  rejectUnknown(input, WRITABLE);
  const out: Row = {};
  if (creating || input.locale !== undefined) {
    const locale = input.locale === undefined || input.locale === null ? 'default' : input.locale;
    if (typeof locale !== 'string' || !LOCALE.test(locale)) throw new InvalidPayloadError('"locale" must be "default" or a locale code such as en or en-US.', { field: 'locale' });
    out.locale = locale;
  }
  if (input.subject !== undefined) {
    const subject = optionalText('subject', input.subject);
    if (typeof subject === 'string') assertTemplateCompiles('subject', subject);
    out.subject = subject;
  }
  if (creating || input.content !== undefined) {
    const content = requiredString('content', input.content, MAX_TEXT);
    assertTemplateCompiles('content', content);
    out.content = content;
  }
  if (input.metadata !== undefined) out.metadata = optionalObject('metadata', input.metadata);
  const active = optionalBoolean('active', input.active);
  if (active !== undefined) out.active = active;
  return out;
}

async function assertUnique(ctx: ServiceContext, templateId: string, providerId: number, locale: string, except: number | null): Promise<void> {
  const [dup] = await run(ctx.db,
    'select 1 from svc_notify_template_contents where template_id = $1 and provider_id = $2 and locale = $3 and id is distinct from $4',
    [templateId, providerId, locale, except]);
  if (dup) throw new RecordNotUniqueError({ collection: COLLECTION, field: 'locale' });
}

/** GET /notify/templates/{templateId}/contents: the standard query, scoped to the template. */
export async function listContents(ctx: ServiceContext, templateId: string, input: QueryInput): Promise<{ data: Row[]; meta?: Row }> {
  await authorize(ctx, COLLECTION, 'read');
  await authorize(ctx, 'svc_notify_templates', 'read');
  if (!(await templateChannels(ctx, templateId, false))) notFound(ctx, 'Template', templateId);
  const q: Query = typeof input.query === 'function' ? input.query() : input.query;
  const scope = { template_id: { _eq: templateId } };
  return listRecords(ctx, COLLECTION, { ...q, filter: q.filter ? { _and: [q.filter, scope] } : scope });
}

export async function createContent(ctx: ServiceContext, templateId: string, body: unknown): Promise<number> {
  await authorize(ctx, COLLECTION, 'create');
  const input = bodyObject(body);
  const data = validateFields({ ...input, provider_id: undefined }, true);
  if (!('provider_id' in input)) throw new InvalidPayloadError('"provider_id" is required.', { field: 'provider_id' });
  return inNotifyTransaction(ctx, async (trx) => {
    const channels = await templateChannels(trx, templateId, true);
    if (!channels) notFound(ctx, 'Template', templateId);
    const provider = await providerChannel(trx, input.provider_id, channels);
    await assertUnique(trx, templateId, provider.id, String(data.locale), null);
    return Number(await createItem(trx, COLLECTION, { template_id: templateId, provider_id: provider.id, provider: provider.channel, ...data }));
  });
}

function contentKey(raw: string): number {
  const id = intId(raw);
  if (id === null) throw new NotFoundError(`${LABEL} "${raw.slice(0, 64)}" doesn't exist.`);
  return id;
}

export async function updateContent(ctx: ServiceContext, rawId: string, body: unknown): Promise<number> {
  await authorize(ctx, COLLECTION, 'update');
  const id = contentKey(rawId);
  const input = bodyObject(body);
  if ('template_id' in input) throw new InvalidPayloadError('"template_id" cannot be changed.', { field: 'template_id' });
  const data = validateFields({ ...input, provider_id: undefined }, false);
  return inNotifyTransaction(ctx, async (trx) => {
    const [row] = await run<{ template_id: string; provider_id: number; locale: string }>(trx.db,
      'select template_id, provider_id, locale from svc_notify_template_contents where id = $1 for update', [id]);
    if (!row) notFound(ctx, LABEL, id);
    if (input.provider_id !== undefined && input.provider_id !== row.provider_id) {
      const provider = await providerChannel(trx, input.provider_id, (await templateChannels(trx, row.template_id, true)) ?? []);
      data.provider_id = provider.id;
      data.provider = provider.channel;
    }
    if (data.provider_id !== undefined || data.locale !== undefined) {
      await assertUnique(trx, row.template_id, Number(data.provider_id ?? row.provider_id), String(data.locale ?? row.locale), id);
    }
    if (Object.keys(data).length) await updateItem(trx, COLLECTION, id, data);
    return id;
  });
}

export async function deleteContent(ctx: ServiceContext, rawId: string): Promise<void> {
  await authorize(ctx, COLLECTION, 'delete');
  const id = contentKey(rawId);
  await inNotifyTransaction(ctx, async (trx) => {
    const [row] = await run(trx.db, 'select 1 from svc_notify_template_contents where id = $1 for update', [id]);
    if (!row) notFound(ctx, LABEL, id);
    await deleteItem(trx, COLLECTION, id);
  });
}
