/** Reads of svc_extensions and svc_extension_settings (SPEC.md > Endpoints > Extensions). Settings values with
 * secrets (storage providers) are shown masked, as /system/storage-providers shows them. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { requireAdmin } from '../admin/system-records.ts';
import { assertAuthenticated } from '../access/authenticated.ts';
import { maskConfig } from '../storage/provider-config.ts';
import { isUuid } from '../uuid.ts';

export interface ExtensionRow { id: string; enabled: boolean; folder: string; source: string; bundle: string | null }

const COLUMNS = 'id, enabled, folder, source, bundle';

export async function listExtensions(ctx: ServiceContext): Promise<ExtensionRow[]> {
  assertAuthenticated(ctx.accountability);
  return run<ExtensionRow>(ctx.db, `select ${COLUMNS} from svc_extensions order by folder, id`);
}

export async function readExtension(ctx: ServiceContext, id: string): Promise<ExtensionRow> {
  assertAuthenticated(ctx.accountability);
  if (!isUuid(id)) throw new NotFoundError();
  const [row] = await run<ExtensionRow>(ctx.db, `select ${COLUMNS} from svc_extensions where id = $1`, [id]);
  if (!row) throw new NotFoundError();
  return row;
}

export interface ExtensionSettingRow { id: number; extension_key: string; name: string | null; value: unknown }

export async function listExtensionSettings(ctx: ServiceContext, extensionKey: string | null): Promise<ExtensionSettingRow[]> {
  requireAdmin(ctx);
  const rows = extensionKey === null
    ? await run<ExtensionSettingRow>(ctx.db, 'select id, extension_key, name, value from svc_extension_settings order by id')
    : await run<ExtensionSettingRow>(ctx.db, 'select id, extension_key, name, value from svc_extension_settings where extension_key = $1 order by id', [extensionKey]);
  return rows.map((r) => ({ ...r, value: isRecord(r.value) ? maskConfig(r.value) : r.value }));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
