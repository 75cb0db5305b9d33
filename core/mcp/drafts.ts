/** Agents write drafts, not live content: a create or update becomes a content version (svc_versions) of the item,
 * written by the versions service under the caller's rights (versioning:create, and create or update permission on
 * the collection; the delta is checked as the write it will become), then submitted for review when an active
 * workflow of the collection matches it (the submit's own rules apply: workflow:start). The live item changes only
 * when a person approves the draft in the workflow (or someone who may promotes it).
 *
 * A draft of new content needs the key its item will have, as the Studio's "new item as draft" does
 * (studio/src/content/item/versions/create-draft.ts): a uuid key is generated (or taken from the agent), a string key
 * must be given, and an auto-increment key is taken by a placeholder row (status `draft` where the collection has a
 * status field), created in the transaction of the version, so a refused draft leaves no placeholder. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError, ServiceError } from '../errors.ts';
import { createItem } from '../items/write/index.ts';
import { keyOf, primaryField } from '../items/write/keys.ts';
import type { PrimaryKey } from '../items/write/types.ts';
import type { CollectionOverview } from '../schema/types.ts';
import { createVersion } from '../versions/create.ts';
import { loadVersion } from '../versions/rows.ts';
import { submitVersion } from '../versions/submit.ts';
import { itemExists, versionableCollection } from '../versions/target.ts';
import { saveVersion } from '../versions/update.ts';
import { runningInstanceOf } from '../workflow/instances.ts';
import { matchingWorkflow } from '../workflow/start.ts';

export interface DraftResult {
  mode: 'draft';
  collection: string;
  /** The item's key (for new content: the key the item will have when the draft is approved). */
  item: string;
  version: { id: string; status: 'draft' | 'pending' };
  /** The review the draft went to, or null (no matching workflow, or not submitted: see `note`). */
  review: { status: 'pending'; instance: string | null } | null;
  note: string;
}

export interface DraftInput {
  collection: string;
  delta: Record<string, unknown>;
  /** The version's name (shown to reviewers). */
  name?: string;
  /** Submit for review when a workflow matches (default true). */
  submit?: boolean;
}

const DEFAULT_NAME = 'Draft by an AI agent';

/** A fresh version key (a slug, unique within the item's versions by its randomness). */
function versionKey(): string {
  return `agent-${randomBytes(6).toString('hex')}`;
}

/** The body of a placeholder row: status `draft` where the collection has a text status field. */
function placeholderPayload(c: CollectionOverview): Record<string, unknown> {
  const status = c.fields.status;
  return status && !status.alias && (status.type === 'string' || status.type === 'text') ? { status: 'draft' } : {};
}

/** Submits the version when a workflow of its collection matches; a refused submit leaves the draft and says why. */
async function review(ctx: ServiceContext, id: string, collection: string, item: string, delta: Record<string, unknown>, submit: boolean): Promise<Pick<DraftResult, 'version' | 'review' | 'note'>> {
  const draft = { version: { id, status: 'draft' as const }, review: null };
  const workflow = await matchingWorkflow(ctx.db, ctx.schema, { collection, item, delta });
  if (!workflow) {
    return { ...draft, note: 'Saved as a draft. No review workflow matches it: a person reviews and publishes it from the drafts of the item.' };
  }
  if (!submit) return { ...draft, note: 'Saved as a draft; not submitted (submit: false). update_item with "version" changes it, and submits it.' };
  try {
    await submitVersion(ctx, id);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return { ...draft, note: `Saved as a draft, but it could not be submitted for review: ${err.message}` };
  }
  return {
    version: { id, status: 'pending' },
    review: { status: 'pending', instance: await runningInstanceOf(ctx.db, id) },
    note: 'Submitted for review: the item changes when a reviewer approves the draft.',
  };
}

/** The key of new content: the agent's, a generated uuid, or (auto-increment) null for a placeholder. */
function newContentKey(c: CollectionOverview, given: unknown): PrimaryKey | null {
  const pk = primaryField(c);
  if (given !== undefined) {
    if (pk.autoIncrement) throw new InvalidPayloadError(`Invalid payload. "${c.collection}" numbers its items itself; leave "key" out.`, { field: 'key' });
    const key = keyOf(pk, given);
    if (key === null) throw new InvalidPayloadError(`Invalid payload. "${String(given).slice(0, 64)}" is not a valid key of "${c.collection}".`, { field: 'key' });
    return key;
  }
  if (pk.autoIncrement) return null;
  if (pk.type === 'uuid') return randomUUID();
  throw new InvalidPayloadError(`Invalid payload. A new item of "${c.collection}" needs its key ("${pk.field}"): pass it as "key".`, { field: 'key' });
}

/** A draft of a new item (create_item in drafts mode). */
export async function draftNewItem(ctx: ServiceContext, input: DraftInput & { key?: string | number }): Promise<DraftResult> {
  const c = versionableCollection(ctx, input.collection);
  if (c.singleton) throw new InvalidPayloadError(`Invalid payload. "${c.collection}" is a singleton: change its one item with update_item.`);
  const given = newContentKey(c, input.key);
  const { id, item } = await inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    if (given !== null && await itemExists(t, { collection: c, key: given })) {
      throw new InvalidPayloadError(`Invalid payload. An item with key "${String(given)}" already exists: change it with update_item.`, { field: 'key' });
    }
    const key = given ?? await createItem(t, c.collection, placeholderPayload(c));
    const item = String(key);
    const id = await createVersion(t, { key: versionKey(), name: input.name ?? DEFAULT_NAME, collection: c.collection, item, delta: input.delta });
    return { id, item };
  });
  return { mode: 'draft', collection: c.collection, item, ...await review(ctx, id, c.collection, item, input.delta, input.submit ?? true) };
}

/** A draft of changes to an existing item (update_item in drafts mode); with `version`, more changes merged into that
 * draft of this item (the author's, while draft or rejected: the versions service's rules). */
export async function draftChanges(ctx: ServiceContext, input: DraftInput & { key: string | number; version?: string }): Promise<DraftResult> {
  const c = versionableCollection(ctx, input.collection);
  const key = keyOf(primaryField(c), input.key);
  if (key === null) throw new ForbiddenError();
  const item = String(key);
  let id: string;
  let delta: Record<string, unknown>;
  if (input.version !== undefined) {
    const version = await loadVersion(ctx.db, input.version);
    // A version of another item answers as a missing one (existence is not leaked), as a preview read does.
    if (!version || version.collection !== c.collection || version.item !== item) throw new ForbiddenError();
    await saveVersion(ctx, version.id, input.delta);
    id = version.id;
    delta = { ...(version.delta ?? {}), ...input.delta };
  } else {
    // A change to an item needs the item (update_item does not make new content: create_item does).
    if (!(await itemExists(ctx, { collection: c, key }))) throw new ForbiddenError();
    id = await createVersion(ctx, { key: versionKey(), name: input.name ?? DEFAULT_NAME, collection: c.collection, item, delta: input.delta });
    delta = input.delta;
  }
  return { mode: 'draft', collection: c.collection, item, ...await review(ctx, id, c.collection, item, delta, input.submit ?? true) };
}
