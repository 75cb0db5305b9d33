/** /system/storage-providers (SPEC.md > Storage providers, all Admin): records of svc_extension_settings with
 * extension_key `system_storage_provider`. Sensitive fields are encrypted at rest and answered as `********`;
 * every change bumps the schema version so every process reloads its providers. */
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

export async function createProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, body: unknown): Promise<{ id: number }> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'name' && k !== 'value') throw new InvalidPayloadError(`Unknown field "${k}".`);
  if (typeof input.name !== 'string' || !NAME.test(input.name)) {
    throw new InvalidPayloadError('"name" is required: letters, digits, "-" and "_", at most 64 characters.', { field: 'name' });
  }
  const config = validateProviderConfig(input.value, services.config.files.storageLocalRoot);
  const sealed = sealConfig(config as unknown as Record<string, unknown>, services.config.secret);
  if (await settingByName(ctx.db, STORAGE_PROVIDER_KEY, input.name)) throw new RecordNotUniqueError({ field: 'name' });
  const id = await insertSetting(ctx.db, STORAGE_PROVIDER_KEY, input.name, sealed);
  await services.schema.invalidate();
  return { id };
}

function recordId(id: string): number {
  const n = Number(id);
  if (!/^\d{1,9}$/.test(id) || !Number.isSafeInteger(n)) throw new NotFoundError('Storage provider not found.');
  return n;
}

export async function updateProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, id: string, body: unknown): Promise<{ id: number }> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'value') throw new InvalidPayloadError(`Only "value" can be changed (got "${k}").`);
  const key = recordId(id);
  const { secret } = services.config;
  await inTransaction(ctx.db, async (trx) => {
    const row = await lockSetting(trx, STORAGE_PROVIDER_KEY, key);
    if (!row) throw new NotFoundError('Storage provider not found.');
    const stored = settingValue(row.value);
    const update = plainObject(input.value);
    // A partial value keeps the stored settings it doesn't mention; a different driver starts afresh.
    const merged = update.driver === undefined || update.driver === stored.driver ? { ...stored, ...update } : update;
    const config = validateProviderConfig(unmask(merged, stored, secret), services.config.files.storageLocalRoot);
    await updateSettingValue(trx, key, sealConfig(config as unknown as Record<string, unknown>, secret));
  });
  await services.schema.invalidate();
  return { id: key };
}

export async function deleteProvider(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  assertAdmin(ctx);
  if (!(await deleteSetting(ctx.db, STORAGE_PROVIDER_KEY, recordId(id)))) throw new NotFoundError('Storage provider not found.');
  await services.schema.invalidate();
}

/** GET /files/storage-locations: the provider names, the default first (admin only). */
export async function storageLocations(services: { storage: StorageRegistry }, ctx: ServiceContext): Promise<string[]> {
  assertAdmin(ctx);
  return (await services.storage.providers(ctx.schema.version)).names;
}
