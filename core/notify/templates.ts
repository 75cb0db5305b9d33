/** /notify/templates (SPEC.md > svc_notify_templates, Template status): named messages with per-provider,
 * per-locale contents. channels: a non-empty list of known channels (default ["email"]); variables_schema: a
 * JSON schema; layout_id: an existing layout or null; status: published, draft (default) or archived.
 * is_system is read-only over the API; a system template cannot be deleted, only archived. Narrowing
 * channels is refused while contents use a provider of a removed channel. GET one adds `contents`. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError, RecordNotUniqueError } from '../errors.ts';
import type { QueryInput } from '../items/read.ts';
import { createItem, deleteItem, deleteItems, updateItem } from '../items/write/index.ts';
import { authorize } from './admin-access.ts';
import { inNotifyTransaction, listRecords, notFound, nowIso, oneRecord, type Row } from './admin-records.ts';
import { channelList } from './channels/registry.ts';
import {
  bodyObject, generatedId, oneOf, optionalBoolean, optionalString, optionalText, rejectUnknown, requiredString, slugId,
} from './payload-fields.ts';
import { assertJsonSchema } from './syntax-check.ts';

const COLLECTION = 'svc_notify_templates';
const CONTENTS = 'svc_notify_template_contents';
const LABEL = 'Template';
export const TEMPLATE_STATUSES = ['published', 'draft', 'archived'] as const;
const WRITABLE = ['id', 'name', 'description', 'channels', 'cc_admin', 'variables_schema', 'layout_id', 'status'];

async function validate(ctx: ServiceContext, input: Row, creating: boolean): Promise<Row> {
  if ('is_system' in input) throw new InvalidPayloadError('"is_system" is read-only.', { field: 'is_system' });
  rejectUnknown(input, WRITABLE);
  const out: Row = {};
  if (creating || input.name !== undefined) out.name = requiredString('name', input.name);
  if (input.description !== undefined) out.description = optionalText('description', input.description);
  if (input.channels !== undefined) out.channels = channelList('channels', input.channels, { nonEmpty: true });
  const cc = optionalBoolean('cc_admin', input.cc_admin);
  if (cc !== undefined) out.cc_admin = cc;
  if (input.variables_schema !== undefined) {
    assertJsonSchema('variables_schema', input.variables_schema);
    out.variables_schema = input.variables_schema;
  }
  if (input.layout_id !== undefined) {
    const layout = optionalString('layout_id', input.layout_id);
    if (layout !== null && layout !== undefined) {
      const [exists] = await run(ctx.db, 'select 1 from svc_notify_layouts where id = $1', [layout]);
      if (!exists) throw new InvalidPayloadError(`"layout_id": layout "${layout.slice(0, 128)}" doesn't exist.`, { field: 'layout_id' });
    }
    out.layout_id = layout ?? null;
  }
  if (input.status !== undefined) out.status = oneOf('status', input.status, TEMPLATE_STATUSES);
  return out;
}

export async function listTemplates(ctx: ServiceContext, input: QueryInput): Promise<{ data: Row[]; meta?: Row }> {
  await authorize(ctx, COLLECTION, 'read');
  return listRecords(ctx, COLLECTION, input);
}

/** One template with its contents (those the caller may read; none without read permission on contents). */
export async function readTemplate(ctx: ServiceContext, id: string, input: QueryInput): Promise<Row> {
  await authorize(ctx, COLLECTION, 'read');
  const template = await oneRecord(ctx, COLLECTION, id, input, LABEL);
  let contents: Row[] = [];
  try {
    contents = (await listRecords(ctx, CONTENTS, { filter: { template_id: { _eq: id } }, sort: ['id'], limit: -1 })).data;
  } catch (err) {
    if (!(err instanceof ForbiddenError)) throw err;
  }
  return { ...template, contents };
}

export async function createTemplate(ctx: ServiceContext, body: unknown): Promise<string> {
  await authorize(ctx, COLLECTION, 'create');
  const input = bodyObject(body);
  return inNotifyTransaction(ctx, async (trx) => {
    const data = await validate(trx, input, true);
    const id = input.id === undefined || input.id === null ? generatedId(String(data.name)) : slugId('id', input.id);
    const [exists] = await run(trx.db, 'select 1 from svc_notify_templates where id = $1', [id]);
    if (exists) throw new RecordNotUniqueError({ collection: COLLECTION, field: 'id' });
    return String(await createItem(trx, COLLECTION, { id, ...data }));
  });
}

export async function updateTemplate(ctx: ServiceContext, id: string, body: unknown): Promise<string> {
  await authorize(ctx, COLLECTION, 'update');
  const input = bodyObject(body);
  if (input.id !== undefined && input.id !== id) throw new InvalidPayloadError('"id" cannot be changed.', { field: 'id' });
  const { id: _ignored, ...rest } = input;
  return inNotifyTransaction(ctx, async (trx) => {
    const [exists] = await run(trx.db, 'select 1 from svc_notify_templates where id = $1 for update', [id]);
    if (!exists) notFound(ctx, LABEL, id);
    const data = await validate(trx, rest, false);
    if (Array.isArray(data.channels)) {
      const orphans = await run<{ id: number; channel: string }>(trx.db,
        `select c.id, p.channel from svc_notify_template_contents c join svc_notify_providers p on p.id = c.provider_id
          where c.template_id = $1 and not (p.channel = any($2::text[])) order by c.id limit 5`, [id, data.channels]);
      if (orphans.length) {
        throw new InvalidPayloadError(`"channels" must keep ${[...new Set(orphans.map((o) => o.channel))].join(', ')}: contents ${orphans.map((o) => o.id).join(', ')} use providers of that channel.`, { field: 'channels' });
      }
    }
    if (Object.keys(data).length === 0) return id;
    await updateItem(trx, COLLECTION, id, { ...data, updated_at: nowIso() });
    return id;
  });
}

export async function deleteTemplate(ctx: ServiceContext, id: string): Promise<void> {
  await authorize(ctx, COLLECTION, 'delete');
  await inNotifyTransaction(ctx, async (trx) => {
    const [row] = await run<{ is_system: boolean }>(trx.db, 'select is_system from svc_notify_templates where id = $1 for update', [id]);
    if (!row) notFound(ctx, LABEL, id);
    if (row.is_system) throw new InvalidPayloadError(`Template "${id.slice(0, 128)}" is a system template: it cannot be deleted, set its status to archived instead.`);
    // The contents go with it (the foreign key cascades), done as recorded deletes.
    const contents = await run<{ id: number }>(trx.db, 'select id from svc_notify_template_contents where template_id = $1 order by id', [id]);
    if (contents.length) await deleteItems(trx, CONTENTS, contents.map((c) => c.id));
    await deleteItem(trx, COLLECTION, id);
  });
}
