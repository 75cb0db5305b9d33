/** /system/storage-providers (SPEC.md > Storage providers, all Admin): records of svc_extension_settings with
 * extension_key `system_storage_provider`. Sensitive fields are encrypted at rest and answered as `********`;
 * every change bumps the schema version so every process reloads its providers. */
import type { ServiceContext } from '../context.ts';
import { inTransaction, run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError, NotFoundError, RecordNotUniqueError } from '../errors.ts';
import { isPlainObject } from '../items/write/payload.ts';
import type { ConfigPort, SchemaPort } from '../ports.ts';
import { maskConfig, sealConfig, unmask, validateProviderConfig } from './provider-config.ts';
import { STORAGE_PROVIDER_KEY, type StorageRegistry } from './registry.ts';

export interface ProviderRecord { id: number; name: string; extension_key: string; value: Record<string, unknown> }

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function assertAdmin(ctx: ServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

function parsed(value: unknown): Record<string, unknown> {
  const v = typeof value === 'string' ? JSON.parse(value) : value;
  return (v ?? {}) as Record<string, unknown>;
}

function shown(row: { id: number; name: string; extension_key: string; value: unknown }): ProviderRecord {
  return { id: row.id, name: row.name, extension_key: row.extension_key, value: maskConfig(parsed(row.value)) };
}

function plainObject(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw new InvalidPayloadError('Body must be a JSON object.');
  return body;
}

export async function listProviders(ctx: ServiceContext): Promise<ProviderRecord[]> {
  assertAdmin(ctx);
  const rows = await run<{ id: number; name: string; extension_key: string; value: unknown }>(ctx.db,
    'select id, name, extension_key, value from svc_extension_settings where extension_key = $1 order by id', [STORAGE_PROVIDER_KEY]);
  return rows.map(shown);
}

export async function readProvider(ctx: ServiceContext, name: string): Promise<ProviderRecord> {
  assertAdmin(ctx);
  const [row] = await run<{ id: number; name: string; extension_key: string; value: unknown }>(ctx.db,
    'select id, name, extension_key, value from svc_extension_settings where extension_key = $1 and name = $2', [STORAGE_PROVIDER_KEY, name]);
  if (!row) throw new NotFoundError(`Storage provider "${name.slice(0, 64)}" doesn't exist.`);
  return shown(row);
}

export async function createProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, body: unknown): Promise<{ id: number }> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'name' && k !== 'value') throw new InvalidPayloadError(`Unknown field "${k}".`);
  if (typeof input.name !== 'string' || !NAME.test(input.name)) {
    throw new InvalidPayloadError('"name" is required: letters, digits, "-" and "_", at most 64 characters.');
  }
  const config = validateProviderConfig(input.value, services.config.files.storageLocalRoot);
  const sealed = sealConfig(config as unknown as Record<string, unknown>, services.config.secret);
  const [exists] = await run(ctx.db, 'select 1 from svc_extension_settings where extension_key = $1 and name = $2', [STORAGE_PROVIDER_KEY, input.name]);
  if (exists) throw new RecordNotUniqueError({ field: 'name' });
  const [row] = await run<{ id: number }>(ctx.db,
    'insert into svc_extension_settings (extension_key, name, value) values ($1, $2, $3) returning id',
    [STORAGE_PROVIDER_KEY, input.name, JSON.stringify(sealed)]);
  await services.schema.invalidate();
  return { id: row.id };
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
    const [row] = await run<{ value: unknown }>(trx,
      'select value from svc_extension_settings where id = $1 and extension_key = $2 for update', [key, STORAGE_PROVIDER_KEY]);
    if (!row) throw new NotFoundError('Storage provider not found.');
    const stored = parsed(row.value);
    const update = plainObject(input.value);
    // A partial value keeps the stored settings it doesn't mention; a different driver starts afresh.
    const merged = update.driver === undefined || update.driver === stored.driver ? { ...stored, ...update } : update;
    const config = validateProviderConfig(unmask(merged, stored, secret), services.config.files.storageLocalRoot);
    await run(trx, 'update svc_extension_settings set value = $2 where id = $1',
      [key, JSON.stringify(sealConfig(config as unknown as Record<string, unknown>, secret))]);
  });
  await services.schema.invalidate();
  return { id: key };
}

export async function deleteProvider(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  assertAdmin(ctx);
  const rows = await run(ctx.db, 'delete from svc_extension_settings where id = $1 and extension_key = $2 returning id', [recordId(id), STORAGE_PROVIDER_KEY]);
  if (rows.length === 0) throw new NotFoundError('Storage provider not found.');
  await services.schema.invalidate();
}

/** GET /files/storage-locations: the provider names, the default first (admin only). */
export async function storageLocations(services: { storage: StorageRegistry }, ctx: ServiceContext): Promise<string[]> {
  assertAdmin(ctx);
  return (await services.storage.providers(ctx.schema.version)).names;
}
