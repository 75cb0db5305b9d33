/** /system/auth-providers (admin only): the runtime sign-on providers, records of svc_extension_settings with
 * extension_key `system_auth_provider` (name = provider name, value = camelCase config with `driver`), administered
 * as the storage providers are (core/storage/providers.ts). Secrets are sealed (./provider-secrets.ts); every change
 * bumps the schema version so every process reloads its providers (./registry.ts). */
import type { Config } from '../../config.ts';
import type { ServiceContext } from '../../context.ts';
import { inTransaction } from '../../db/database.ts';
import { ForbiddenError, InvalidPayloadError, NotFoundError, RecordNotUniqueError } from '../../errors.ts';
import {
  deleteSetting, insertSetting, listSettings, lockSetting, settingByName, settingValue, updateSettingValue, type ExtensionSettingRow,
} from '../../extensions/settings-table.ts';
import type { ConfigPort, SchemaPort } from '../../ports.ts';
import { PROVIDER_NAME, parseProviderRecord, providerRecordValue } from './config.ts';
import { maskProviderValue, sealProviderValue, unmaskProviderValue } from './provider-secrets.ts';
import { AUTH_PROVIDER_KEY } from './types.ts';

export interface AuthProviderRecord { id: number; name: string; extension_key: string; value: Record<string, unknown> }

function assertAdmin(ctx: ServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

function shown(row: ExtensionSettingRow): AuthProviderRecord {
  return { id: row.id, name: row.name ?? '', extension_key: row.extension_key, value: maskProviderValue(settingValue(row.value)) };
}

function plainObject(body: unknown, what = 'Body'): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidPayloadError(`${what} must be a JSON object.`);
  return body as Record<string, unknown>;
}

function recordId(id: string): number {
  if (!/^\d{1,9}$/.test(id)) throw new NotFoundError('Auth provider not found.');
  return Number(id);
}

export async function listAuthProviders(ctx: ServiceContext): Promise<AuthProviderRecord[]> {
  assertAdmin(ctx);
  return (await listSettings(ctx.db, AUTH_PROVIDER_KEY)).map(shown);
}

export async function readAuthProvider(ctx: ServiceContext, name: string): Promise<AuthProviderRecord> {
  assertAdmin(ctx);
  const row = await settingByName(ctx.db, AUTH_PROVIDER_KEY, name);
  if (!row) throw new NotFoundError(`Auth provider "${name.slice(0, 64)}" doesn't exist.`);
  return shown(row);
}

/** The stored form of a validated value: normalised (defaults filled in) and sealed. */
function stored(name: string, plain: Record<string, unknown>, secret: string): Record<string, unknown> {
  return sealProviderValue(providerRecordValue(parseProviderRecord(name, plain)), secret);
}

/** A provider created inside the caller's transaction (`ctx.db`); createAuthProvider bumps the schema version after. */
export async function addAuthProvider(config: Config, ctx: ServiceContext, body: unknown): Promise<number> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'name' && k !== 'value') throw new InvalidPayloadError(`Unknown field "${k}".`);
  const { name } = input;
  if (typeof name !== 'string' || !PROVIDER_NAME.test(name)) {
    throw new InvalidPayloadError('"name" is required: lower-case letters, digits, "-" and "_", at most 64 characters.');
  }
  if (name === 'default') throw new InvalidPayloadError('"default" is the built-in password login and can\'t name a provider.');
  if (config.authProviders.some((p) => p.name === name)) {
    throw new InvalidPayloadError(`"${name}" is a provider of the environment (AUTH_PROVIDERS); choose another name.`);
  }
  // A mask has no stored value to stand for yet.
  const value = stored(name, unmaskProviderValue(plainObject(input.value, '"value"'), {}, config.secret), config.secret);
  if (await settingByName(ctx.db, AUTH_PROVIDER_KEY, name)) throw new RecordNotUniqueError({ field: 'name' });
  return insertSetting(ctx.db, AUTH_PROVIDER_KEY, name, value);
}

export async function createAuthProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, body: unknown): Promise<{ id: number }> {
  const id = await addAuthProvider(services.config, ctx, body);
  await services.schema.invalidate();
  return { id };
}

/** A provider's value changed inside the caller's transaction (merged as PATCH merges it; `********` keeps a secret). */
export async function changeAuthProvider(config: Config, ctx: ServiceContext, key: number, value: unknown): Promise<void> {
  assertAdmin(ctx);
  const { secret } = config;
  await inTransaction(ctx.db, async (trx) => {
    const row = await lockSetting(trx, AUTH_PROVIDER_KEY, key);
    if (!row) throw new NotFoundError('Auth provider not found.');
    const before = settingValue(row.value);
    const update = plainObject(value, '"value"');
    // A partial value keeps the stored settings it doesn't mention; a different driver starts afresh.
    const merged = update.driver === undefined || update.driver === before.driver ? { ...before, ...update } : update;
    await updateSettingValue(trx, key, stored(row.name ?? '', unmaskProviderValue(merged, before, secret), secret));
  });
}

export async function updateAuthProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, id: string, body: unknown): Promise<{ id: number }> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'value') throw new InvalidPayloadError(`Only "value" can be changed (got "${k}").`);
  const key = recordId(id);
  await changeAuthProvider(services.config, ctx, key, input.value);
  await services.schema.invalidate();
  return { id: key };
}

/** A provider deleted inside the caller's transaction; false when there was none. */
export async function removeAuthProvider(ctx: ServiceContext, key: number): Promise<boolean> {
  assertAdmin(ctx);
  return deleteSetting(ctx.db, AUTH_PROVIDER_KEY, key);
}

export async function deleteAuthProvider(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  assertAdmin(ctx);
  if (!(await removeAuthProvider(ctx, recordId(id)))) throw new NotFoundError('Auth provider not found.');
  await services.schema.invalidate();
}
