/** Reads of svc_extensions and svc_extension_settings (SPEC.md > Endpoints > Extensions). Settings values with
 * secrets are shown masked, as their own APIs show them: storage providers as /system/storage-providers, sign-on
 * providers as /system/auth-providers. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { requireAdmin } from '../admin/system-records.ts';
import { assertAuthenticated } from '../access/authenticated.ts';
import { maskProviderValue } from '../auth/sso/provider-secrets.ts';
import { AUTH_PROVIDER_KEY } from '../auth/sso/types.ts';
import { maskConfig } from '../storage/provider-config.ts';
import { listSettings, type ExtensionSettingRow } from './settings-table.ts';
import { loadedExtension, type LoadedExtension } from './loaded.ts';
import { isUuid } from '../uuid.ts';

interface StoredExtension { id: string; enabled: boolean; folder: string; source: string; bundle: string | null }

/** The stored record, and what this process found at boot (null where it knows nothing: no host, a bundle's
 * entry); the load error is for admins only (it may name paths on the server). */
export type ExtensionRow = StoredExtension & {
  type: LoadedExtension['type'];
  description: string | null;
  version: string | null;
  status: LoadedExtension['status'] | null;
  error?: string | null;
};

const COLUMNS = 'id, enabled, folder, source, bundle';

function described(ctx: ServiceContext, row: StoredExtension): ExtensionRow {
  const found = loadedExtension(ctx.db, row.id);
  const out: ExtensionRow = { ...row, type: found?.type ?? null, description: found?.description ?? null, version: found?.version ?? null, status: found?.status ?? null };
  if (ctx.accountability.admin) out.error = found?.error ?? null;
  return out;
}

export async function listExtensions(ctx: ServiceContext): Promise<ExtensionRow[]> {
  assertAuthenticated(ctx.accountability);
  return (await run<StoredExtension>(ctx.db, `select ${COLUMNS} from svc_extensions order by folder, id`)).map((r) => described(ctx, r));
}

export async function readExtension(ctx: ServiceContext, id: string): Promise<ExtensionRow> {
  assertAuthenticated(ctx.accountability);
  if (!isUuid(id)) throw new NotFoundError();
  const [row] = await run<StoredExtension>(ctx.db, `select ${COLUMNS} from svc_extensions where id = $1`, [id]);
  if (!row) throw new NotFoundError();
  return described(ctx, row);
}

export type { ExtensionSettingRow };

export async function listExtensionSettings(ctx: ServiceContext, extensionKey: string | null): Promise<ExtensionSettingRow[]> {
  requireAdmin(ctx);
  const rows = await listSettings(ctx.db, extensionKey);
  return rows.map((r) => ({ ...r, value: isRecord(r.value) ? masked(r.extension_key, r.value) : r.value }));
}

function masked(key: string, value: Record<string, unknown>): Record<string, unknown> {
  return key === AUTH_PROVIDER_KEY ? maskProviderValue(value) : maskConfig(value);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
