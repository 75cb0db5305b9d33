/** Writes of svc_versions rows. They go through the items write service, so every change is recorded in
 * svc_activity and svc_revisions like an item write, under the caller's user (Directus records versions
 * activity). The version rules were checked before (access.ts): the write itself runs elevated, since
 * svc_versions is reached through app permissions, not through permission rows on it. */
import type { ServiceContext } from '../context.ts';
import { createItem, updateItem } from '../items/write/index.ts';
import type { Delta, VersionStatus } from './types.ts';

const COLLECTION = 'svc_versions';

function elevated(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true, accountability: { ...ctx.accountability, admin: true } };
}

export interface NewVersion {
  key: string;
  name: string | null;
  collection: string;
  item: string;
  hash: string | null;
  delta: Delta | null;
}

export async function insertVersion(ctx: ServiceContext, data: NewVersion): Promise<string> {
  const now = new Date().toISOString();
  const user = ctx.accountability.user;
  return String(await createItem(elevated(ctx), COLLECTION, {
    ...data, status: 'draft', user_created: user, user_updated: user, date_created: now, date_updated: now,
  }));
}

export interface VersionChange {
  name?: string | null;
  key?: string;
  delta?: Delta | null;
  hash?: string | null;
  status?: VersionStatus;
}

export async function changeVersion(ctx: ServiceContext, id: string, change: VersionChange): Promise<void> {
  await updateItem(elevated(ctx), COLLECTION, id, { ...change, user_updated: ctx.accountability.user, date_updated: new Date().toISOString() });
}
