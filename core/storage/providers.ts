/** /system/storage-providers (SPEC.md > Storage providers, all Admin): records of svc_extension_settings with
 * extension_key `system_storage_provider`. Sensitive fields are encrypted at rest and answered as `********`;
 * every change bumps the schema version so every process reloads its providers. */
import type { Config } from '../config.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError, NotFoundError, RecordNotUniqueError } from '../errors.ts';
import { isPlainObject } from '../items/write/payload.ts';
import {
  deleteSetting, insertSetting, listSettings, lockSetting, settingByName, settingValue, updateSettingValue, type ExtensionSettingRow,
} from '../extensions/settings-table.ts';
import type { ConfigPort, SchemaPort } from '../ports.ts';
import { maskConfig, sealConfig, unmask, validateProviderConfig } from './provider-config.ts';
import { STORAGE_PROVIDER_KEY, type StorageRegistry } from './registry.ts';

export interface ProviderRecord { id: number; name: string; extension_key: string; value: Record<string, unknown> }

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function assertAdmin(ctx: ServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

function shown(row: ExtensionSettingRow): ProviderRecord {
  return { id: row.id, name: row.name ?? '', extension_key: row.extension_key, value: maskConfig(settingValue(row.value)) };
}

function plainObject(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw new InvalidPayloadError('Body must be a JSON object.');
  return body;
}

export async function listProviders(ctx: ServiceContext): Promise<ProviderRecord[]> {
  assertAdmin(ctx);
  return (await listSettings(ctx.db, STORAGE_PROVIDER_KEY)).map(shown);
}

export async function readProvider(ctx: ServiceContext, name: string): Promise<ProviderRecord> {
  assertAdmin(ctx);
  const row = await settingByName(ctx.db, STORAGE_PROVIDER_KEY, name);
  if (!row) throw new NotFoundError(`Storage provider "${name.slice(0, 64)}" doesn't exist.`);
  return shown(row);
}

/** A provider created inside the caller's transaction (`ctx.db`); createProvider bumps the schema version after. */
export async function addStorageProvider(config: Config, ctx: ServiceContext, body: unknown): Promise<number> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'name' && k !== 'value') throw new InvalidPayloadError(`Unknown field "${k}".`);
  if (typeof input.name !== 'string' || !NAME.test(input.name)) {
    throw new InvalidPayloadError('"name" is required: letters, digits, "-" and "_", at most 64 characters.', { field: 'name' });
  }
  const checked = validateProviderConfig(input.value, config.files.storageLocalRoot);
  const sealed = sealConfig(checked as unknown as Record<string, unknown>, config.secret);
  if (await settingByName(ctx.db, STORAGE_PROVIDER_KEY, input.name)) throw new RecordNotUniqueError({ field: 'name' });
  return insertSetting(ctx.db, STORAGE_PROVIDER_KEY, input.name, sealed);
}

export async function createProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, body: unknown): Promise<{ id: number }> {
  const id = await addStorageProvider(services.config, ctx, body);
  await services.schema.invalidate();
  return { id };
}

function recordId(id: string): number {
  const n = Number(id);
  if (!/^\d{1,9}$/.test(id) || !Number.isSafeInteger(n)) throw new NotFoundError('Storage provider not found.');
  return n;
}

/** A provider's value changed inside the caller's transaction (a partial value is merged as PATCH merges it; `********`
 * keeps a stored secret). */
export async function changeStorageProvider(config: Config, ctx: ServiceContext, key: number, value: unknown): Promise<void> {
  assertAdmin(ctx);
  const { secret } = config;
  await inTransaction(ctx.db, async (trx) => {
    const row = await lockSetting(trx, STORAGE_PROVIDER_KEY, key);
    if (!row) throw new NotFoundError('Storage provider not found.');
    const stored = settingValue(row.value);
    const update = plainObject(value);
    // A partial value keeps the stored settings it doesn't mention; a different driver starts afresh.
    const merged = update.driver === undefined || update.driver === stored.driver ? { ...stored, ...update } : update;
    const checked = validateProviderConfig(unmask(merged, stored, secret), config.files.storageLocalRoot);
    await updateSettingValue(trx, key, sealConfig(checked as unknown as Record<string, unknown>, secret));
  });
}

export async function updateProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, id: string, body: unknown): Promise<{ id: number }> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'value') throw new InvalidPayloadError(`Only "value" can be changed (got "${k}").`);
  const key = recordId(id);
  await changeStorageProvider(services.config, ctx, key, input.value);
  await services.schema.invalidate();
  return { id: key };
}

/** A provider deleted inside the caller's transaction; false when there was none. */
export async function removeStorageProvider(ctx: ServiceContext, key: number): Promise<boolean> {
  assertAdmin(ctx);
  return deleteSetting(ctx.db, STORAGE_PROVIDER_KEY, key);
}

export async function deleteProvider(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  assertAdmin(ctx);
  if (!(await removeStorageProvider(ctx, recordId(id)))) throw new NotFoundError('Storage provider not found.');
  await services.schema.invalidate();
}

/** GET /files/storage-locations: the provider names, the default first (admin only). */
export async function storageLocations(services: { storage: StorageRegistry }, ctx: ServiceContext): Promise<string[]> {
  assertAdmin(ctx);
  return (await services.storage.providers(ctx.schema.version)).names;
}
