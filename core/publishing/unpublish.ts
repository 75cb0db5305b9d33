/** What unpublishing an item writes: the collection's archive field set to its archive value when the collection
 * has one (svc_collections.archive_field / archive_value, as Directus' archive), else its `status` field set to
 * `draft`. A collection with neither cannot be unpublished. The archive value is stored as text; it is written as
 * the field's type (a boolean archive field gets true, not "true"). */
import type { Executor } from '../db/database.ts';
import { readCollectionMetaRow } from '../schema/ddl/meta.ts';
import type { CollectionOverview, FieldOverview } from '../schema/types.ts';

export type UnpublishChange = Record<string, unknown>;

function typed(field: FieldOverview, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  switch (field.type) {
    case 'boolean':
      return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;
    case 'integer':
    case 'float':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    default:
      return value;
  }
}

function column(collection: CollectionOverview, name: unknown): FieldOverview | null {
  if (typeof name !== 'string' || !Object.hasOwn(collection.fields, name)) return null;
  const field = collection.fields[name];
  return field.alias ? null : field;
}

/** The change that takes an item of `collection` out of publication, or null when the collection has no way to. */
export async function unpublishChange(db: Executor, collection: CollectionOverview): Promise<UnpublishChange | null> {
  const meta = await readCollectionMetaRow(db, collection.collection);
  const archive = column(collection, meta?.archive_field);
  if (archive && meta?.archive_value !== null && meta?.archive_value !== undefined) {
    return { [archive.field]: typed(archive, meta.archive_value) };
  }
  const status = column(collection, 'status');
  return status ? { status: 'draft' } : null;
}

export function cannotUnpublishMessage(collection: string): string {
  return `Items of "${collection}" cannot be unpublished: the collection has no archive field and no status field.`;
}
