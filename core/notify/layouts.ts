/** /notify/layouts (SPEC.md > svc_notify_layouts): wrappers around rendered content. `content` must contain
 * the raw placeholder `{{{content}}}` and compile as a Handlebars template; variables_schema, when given, must
 * be a JSON schema. The id is a client-chosen slug or one generated from the name. Deleting a layout leaves
 * its templates without one (layout_id set null by the foreign key). */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { InvalidPayloadError, RecordNotUniqueError } from '../errors.ts';
import type { QueryInput } from '../items/read.ts';
import { createItem, deleteItem, updateItem, updateItems } from '../items/write/index.ts';
import { authorize } from './admin-access.ts';
import { inNotifyTransaction, listRecords, notFound, nowIso, oneRecord, type Row } from './admin-records.ts';
import { bodyObject, generatedId, optionalText, rejectUnknown, requiredString, slugId } from './payload-fields.ts';
import { assertJsonSchema, assertTemplateCompiles } from './syntax-check.ts';

const COLLECTION = 'svc_notify_layouts';
const LABEL = 'Layout';
export const CONTENT_PLACEHOLDER = '{{{content}}}';
const MAX_TEXT = 1_000_000;

function layoutContent(v: unknown): string {
  const content = requiredString('content', v, MAX_TEXT);
  if (!content.includes(CONTENT_PLACEHOLDER)) {
    throw new InvalidPayloadError(`"content" must contain the placeholder ${CONTENT_PLACEHOLDER} where the message body goes.`, { field: 'content' });
  }
  assertTemplateCompiles('content', content);
  return content;
}

function validate(input: Row, creating: boolean): Row {
  rejectUnknown(input, ['id', 'name', 'description', 'content', 'variables_schema']);
  const out: Row = {};
  if (creating || input.name !== undefined) out.name = requiredString('name', input.name);
  if (input.description !== undefined) out.description = optionalText('description', input.description);
  if (creating || input.content !== undefined) out.content = layoutContent(input.content);
  if (input.variables_schema !== undefined) {
    assertJsonSchema('variables_schema', input.variables_schema);
    out.variables_schema = input.variables_schema;
  }
  return out;
}

export async function listLayouts(ctx: ServiceContext, input: QueryInput): Promise<{ data: Row[]; meta?: Row }> {
  await authorize(ctx, COLLECTION, 'read');
  return listRecords(ctx, COLLECTION, input);
}

export async function readLayout(ctx: ServiceContext, id: string, input: QueryInput): Promise<Row> {
  await authorize(ctx, COLLECTION, 'read');
  return oneRecord(ctx, COLLECTION, id, input, LABEL);
}

export async function createLayout(ctx: ServiceContext, body: unknown): Promise<string> {
  await authorize(ctx, COLLECTION, 'create');
  const input = bodyObject(body);
  const data = validate(input, true);
  const id = input.id === undefined || input.id === null ? generatedId(String(data.name)) : slugId('id', input.id);
  return inNotifyTransaction(ctx, async (trx) => {
    const [exists] = await run(trx.db, 'select 1 from svc_notify_layouts where id = $1', [id]);
    if (exists) throw new RecordNotUniqueError({ collection: COLLECTION, field: 'id' });
    return String(await createItem(trx, COLLECTION, { id, ...data }));
  });
}

export async function updateLayout(ctx: ServiceContext, id: string, body: unknown): Promise<string> {
  await authorize(ctx, COLLECTION, 'update');
  const input = bodyObject(body);
  if (input.id !== undefined && input.id !== id) throw new InvalidPayloadError('"id" cannot be changed.', { field: 'id' });
  const { id: _ignored, ...rest } = input;
  const data = validate(rest, false);
  return inNotifyTransaction(ctx, async (trx) => {
    const [exists] = await run(trx.db, 'select 1 from svc_notify_layouts where id = $1 for update', [id]);
    if (!exists) notFound(ctx, LABEL, id);
    if (Object.keys(data).length) await updateItem(trx, COLLECTION, id, data);
    return id;
  });
}

export async function deleteLayout(ctx: ServiceContext, id: string): Promise<void> {
  await authorize(ctx, COLLECTION, 'delete');
  await inNotifyTransaction(ctx, async (trx) => {
    const [exists] = await run(trx.db, 'select 1 from svc_notify_layouts where id = $1 for update', [id]);
    if (!exists) notFound(ctx, LABEL, id);
    // What the foreign key would do silently (set null), done as recorded updates.
    const users = await run<{ id: string }>(trx.db, 'select id from svc_notify_templates where layout_id = $1 order by id', [id]);
    if (users.length) await updateItems(trx, 'svc_notify_templates', users.map((r) => r.id), { layout_id: null, updated_at: nowIso() });
    await deleteItem(trx, COLLECTION, id);
  });
}
