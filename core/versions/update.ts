/** PATCH /versions/{id} replaces the fields it names (`name`, `key`, `delta`: a given delta replaces the
 * stored one); POST /versions/{id}/save merges a partial delta into the stored one (Directus' save). Both are
 * for the creator (or an admin) with versioning:create, only while the version is draft or rejected (a
 * pending version is under review, an approved one is applied). The delta is checked again, and the hash
 * is taken anew from the main item, whose state the delta now builds on. */
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { readItemData } from '../items/read.ts';
import { loadPermissions } from '../access/permissions.ts';
import { requireAuthor } from './access.ts';
import { readableDelta } from './readable-delta.ts';
import { checkDelta, parseDelta, withoutKey } from './delta.ts';
import { parseUpdate } from './input.ts';
import { loadVersion } from './rows.ts';
import { changeVersion, type VersionChange } from './store.ts';
import { itemExists, mainHash, storedTarget } from './target.ts';
import type { Delta, VersionRow } from './types.ts';

export function requireEditable(version: VersionRow): void {
  if (version.status === 'draft' || version.status === 'rejected') return;
  throw new InvalidPayloadError(`Invalid payload. A ${version.status} version can't be changed.`, { reason: 'invalid_status', status: version.status });
}

async function lockedForEdit(ctx: ServiceContext, id: string): Promise<VersionRow> {
  const version = await loadVersion(ctx.db, id, { lock: true });
  if (!version) throw new ForbiddenError();
  await requireAuthor(ctx, version);
  requireEditable(version);
  return version;
}

async function deltaChange(ctx: ServiceContext, version: VersionRow, delta: Delta | null): Promise<VersionChange> {
  const target = storedTarget(ctx, version.collection, version.item);
  await checkDelta(ctx, target, delta, await itemExists(ctx, target));
  return { delta, hash: await mainHash(ctx, target) };
}

export async function patchVersion(ctx: ServiceContext, id: string, raw: unknown): Promise<string> {
  const input = parseUpdate(raw);
  return inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    const version = await lockedForEdit(t, id);
    const change: VersionChange = {};
    if (input.key !== undefined) change.key = input.key;
    if (input.name !== undefined) change.name = input.name;
    if (input.delta !== undefined) Object.assign(change, await deltaChange(t, version, parseDelta(input.delta)));
    if (Object.keys(change).length > 0) await changeVersion(t, version.id, change);
    return version.id;
  });
}

/** Merges `raw` into the delta; answers the main item (as the caller reads it) with the merged delta over
 * it, as Directus' save does. */
export async function saveVersion(ctx: ServiceContext, id: string, raw: unknown): Promise<Record<string, unknown>> {
  const partial = parseDelta(raw) ?? {};
  return inTransaction(ctx.db, async (trx) => {
    const t: ServiceContext = { ...ctx, db: trx };
    const version = await lockedForEdit(t, id);
    const merged: Delta = { ...(version.delta ?? {}), ...partial };
    await changeVersion(t, version.id, await deltaChange(t, version, merged));
    const target = storedTarget(t, version.collection, version.item);
    const main = await readItemData(t, version.collection, target.key, { fields: ['*'] });
    const base = main === null ? { [target.collection.primary!]: target.key } : JSON.parse(main) as Record<string, unknown>;
    const changes = withoutKey(target.collection, merged);
    return { ...base, ...readableDelta(t.schema, t.accountability.admin ? null : await loadPermissions(t), version.collection, changes) };
  });
}
