/** /system/auth-providers (admin only): the runtime sign-on providers, records of svc_extension_settings with
 * extension_key `system_auth_provider` (name = provider name, value = camelCase config with `driver`), administered
 * as the storage providers are (core/storage/providers.ts). Secrets are sealed (./provider-secrets.ts); every change
 * bumps the schema version so every process reloads its providers (./registry.ts). */
import type { ServiceContext } from '../../context.ts';
import { inTransaction, run } from '../../db/database.ts';
import { ForbiddenError, InvalidPayloadError, NotFoundError, RecordNotUniqueError } from '../../errors.ts';
import type { ConfigPort, SchemaPort } from '../../ports.ts';
import { PROVIDER_NAME, parseProviderRecord, providerRecordValue } from './config.ts';
import { maskProviderValue, sealProviderValue, unmaskProviderValue } from './provider-secrets.ts';
import { AUTH_PROVIDER_KEY } from './types.ts';

export interface AuthProviderRecord { id: number; name: string; extension_key: string; value: Record<string, unknown> }
type Row = { id: number; name: string; extension_key: string; value: unknown };

function assertAdmin(ctx: ServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

function parsed(value: unknown): Record<string, unknown> {
  const v = typeof value === 'string' ? JSON.parse(value) : value;
  return (v ?? {}) as Record<string, unknown>;
}

function shown(row: Row): AuthProviderRecord {
  return { id: row.id, name: row.name, extension_key: row.extension_key, value: maskProviderValue(parsed(row.value)) };
}

function plainObject(body: unknown, what = 'Body'): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidPayloadError(`${what} must be a JSON object.`);
  return body as Record<string, unknown>;
}

function recordId(id: string): number {
  if (!/^\d{1,9}$/.test(id)) throw new NotFoundError('Auth provider not found.');
  return Number(id);
}

const COLUMNS = 'id, name, extension_key, value';

export async function listAuthProviders(ctx: ServiceContext): Promise<AuthProviderRecord[]> {
  assertAdmin(ctx);
  const rows = await run<Row>(ctx.db, `select ${COLUMNS} from svc_extension_settings where extension_key = $1 order by id`, [AUTH_PROVIDER_KEY]);
  return rows.map(shown);
}

export async function readAuthProvider(ctx: ServiceContext, name: string): Promise<AuthProviderRecord> {
  assertAdmin(ctx);
  const [row] = await run<Row>(ctx.db, `select ${COLUMNS} from svc_extension_settings where extension_key = $1 and name = $2`, [AUTH_PROVIDER_KEY, name]);
  if (!row) throw new NotFoundError(`Auth provider "${name.slice(0, 64)}" doesn't exist.`);
  return shown(row);
}

/** The stored form of a validated value: normalised (defaults filled in) and sealed. */
function stored(name: string, plain: Record<string, unknown>, secret: string): string {
  return JSON.stringify(sealProviderValue(providerRecordValue(parseProviderRecord(name, plain)), secret));
}

export async function createAuthProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, body: unknown): Promise<{ id: number }> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'name' && k !== 'value') throw new InvalidPayloadError(`Unknown field "${k}".`);
  const { name } = input;
  if (typeof name !== 'string' || !PROVIDER_NAME.test(name)) {
    throw new InvalidPayloadError('"name" is required: lower-case letters, digits, "-" and "_", at most 64 characters.');
  }
  if (name === 'default') throw new InvalidPayloadError('"default" is the built-in password login and can\'t name a provider.');
  if (services.config.authProviders.some((p) => p.name === name)) {
    throw new InvalidPayloadError(`"${name}" is a provider of the environment (AUTH_PROVIDERS); choose another name.`);
  }
  // A mask has no stored value to stand for yet.
  const value = stored(name, unmaskProviderValue(plainObject(input.value, '"value"'), {}, services.config.secret), services.config.secret);
  const [exists] = await run(ctx.db, 'select 1 from svc_extension_settings where extension_key = $1 and name = $2', [AUTH_PROVIDER_KEY, name]);
  if (exists) throw new RecordNotUniqueError({ field: 'name' });
  const [row] = await run<{ id: number }>(ctx.db,
    'insert into svc_extension_settings (extension_key, name, value) values ($1, $2, $3) returning id', [AUTH_PROVIDER_KEY, name, value]);
  await services.schema.invalidate();
  return { id: row.id };
}

export async function updateAuthProvider(services: ConfigPort & SchemaPort, ctx: ServiceContext, id: string, body: unknown): Promise<{ id: number }> {
  assertAdmin(ctx);
  const input = plainObject(body);
  for (const k of Object.keys(input)) if (k !== 'value') throw new InvalidPayloadError(`Only "value" can be changed (got "${k}").`);
  const key = recordId(id);
  const { secret } = services.config;
  await inTransaction(ctx.db, async (trx) => {
    const [row] = await run<{ name: string; value: unknown }>(trx,
      'select name, value from svc_extension_settings where id = $1 and extension_key = $2 for update', [key, AUTH_PROVIDER_KEY]);
    if (!row) throw new NotFoundError('Auth provider not found.');
    const before = parsed(row.value);
    const update = plainObject(input.value, '"value"');
    // A partial value keeps the stored settings it doesn't mention; a different driver starts afresh.
    const merged = update.driver === undefined || update.driver === before.driver ? { ...before, ...update } : update;
    const value = stored(row.name, unmaskProviderValue(merged, before, secret), secret);
    await run(trx, 'update svc_extension_settings set value = $2 where id = $1', [key, value]);
  });
  await services.schema.invalidate();
  return { id: key };
}

export async function deleteAuthProvider(services: SchemaPort, ctx: ServiceContext, id: string): Promise<void> {
  assertAdmin(ctx);
  const rows = await run(ctx.db, 'delete from svc_extension_settings where id = $1 and extension_key = $2 returning id', [recordId(id), AUTH_PROVIDER_KEY]);
  if (rows.length === 0) throw new NotFoundError('Auth provider not found.');
  await services.schema.invalidate();
}
