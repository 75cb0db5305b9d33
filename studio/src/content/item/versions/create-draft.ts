/** Creating a draft (POST /versions): of an existing item, or of new content, whose key is chosen here (a uuid), typed
 * in the form (a string key), or taken by a placeholder row (an auto-increment key: the row must exist to hold the
 * number; it is created with the status Draft where the collection has one, and deleted again if the draft cannot be
 * created, so nothing is left half-made). */
import { request } from '../../../api/client.ts';
import { choicesOf } from '../model.ts';
import type { Field } from '../../schema.ts';
import type { NewDraftKind } from './NewDraftDialog.tsx';

type Row = Record<string, unknown>;

/** How a new item of the collection gets its key, for a draft of new content. */
export function newContentKind(fields: Field[], pkField: Field | undefined, typedKey: unknown): NewDraftKind | { kind: 'needs-key' } {
  if (!pkField || pkField.schema?.has_auto_increment) return { kind: 'placeholder', status: placeholderStatus(fields) !== null };
  if (pkField.meta?.special?.includes('uuid') || pkField.type === 'uuid') {
    return typeof typedKey === 'string' && typedKey !== '' ? { kind: 'string', key: typedKey } : { kind: 'uuid' };
  }
  if (typedKey === null || typedKey === undefined || typedKey === '') return { kind: 'needs-key' };
  return { kind: 'string', key: String(typedKey) };
}

/** The placeholder's body: status Draft when the collection has a status field that takes it. */
function placeholderStatus(fields: Field[]): Row | null {
  const status = fields.find((f) => f.field === 'status' && (f.type === 'string' || f.type === 'text'));
  if (!status) return null;
  const choices = choicesOf(status);
  return choices.length === 0 || choices.some((c) => c.value === 'draft') ? { status: 'draft' } : null;
}

export async function createVersion(body: { key: string; name: string; collection: string; item: string; delta: Row }): Promise<string> {
  return request<string>('POST', '/versions', { body });
}

/** A draft of new content; answers the version and the item key it will create. */
export async function createNewContentDraft(args: {
  collection: string;
  fields: Field[];
  pk: string;
  kind: NewDraftKind;
  name: string;
  key: string;
  delta: Row;
}): Promise<{ versionId: string; item: string }> {
  const { collection, kind } = args;
  const { [args.pk]: _key, ...delta } = args.delta;
  const base = { key: args.key, name: args.name, collection, delta };
  if (kind.kind === 'uuid') {
    const item = crypto.randomUUID();
    return { versionId: await createVersion({ ...base, item }), item };
  }
  if (kind.kind === 'string') return { versionId: await createVersion({ ...base, item: kind.key }), item: kind.key };
  // An auto-increment key: a placeholder row holds the number.
  const path = `/items/${encodeURIComponent(collection)}`;
  const created = await request<unknown>('POST', path, { body: placeholderStatus(args.fields) ?? {} });
  const key = created !== null && typeof created === 'object' ? (created as Row)[args.pk] : created;
  const item = String(key);
  try {
    return { versionId: await createVersion({ ...base, item }), item };
  } catch (err) {
    await request('DELETE', `${path}/${encodeURIComponent(item)}`).catch(() => undefined);
    throw err;
  }
}
