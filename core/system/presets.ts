/** Presets and bookmarks (svc_presets) written by an admin inside the caller's transaction (a schema apply's
 * configuration steps), through the items write service so each write is recorded in activity. */
import type { ServiceContext } from '../context.ts';
import { createItem, deleteItem, updateItem } from '../items/write/index.ts';
import { PRESETS } from './own-presets.ts';
import { systemContext } from './service.ts';

export async function addPreset(ctx: ServiceContext, data: Record<string, unknown>): Promise<number> {
  return Number(await createItem(systemContext(ctx), PRESETS, data));
}

export async function changePreset(ctx: ServiceContext, id: number, data: Record<string, unknown>): Promise<void> {
  await updateItem(systemContext(ctx), PRESETS, id, data);
}

export async function removePreset(ctx: ServiceContext, id: number): Promise<void> {
  await deleteItem(systemContext(ctx), PRESETS, id);
}
