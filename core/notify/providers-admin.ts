/** /notify/providers (SPEC.md > Notification module, all Admin): CRUD over svc_notify_providers.
 * - config is validated per channel/type (provider-config.ts); its sensitive keys and webhook_secret are
 *   encrypted at rest with SECRET and answered as `********`; sending `********` back keeps the stored value.
 * - Exactly one primary per channel: promoting (create or PATCH with is_primary true, PATCH .../primary)
 *   demotes the channel's previous primary in the same transaction, under a per-channel advisory lock (the
 *   unique partial index svc_notify_providers_one_primary is the last line).
 * - channel is fixed at creation; a type change replaces the whole config.
 * - Delete is refused (400) while template contents reference the provider. */
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { InvalidPayloadError, NotFoundError } from '../errors.ts';
import type { QueryInput } from '../items/read.ts';
import { createItem, deleteItem, updateItem, updateItems } from '../items/write/index.ts';
import { requireAdmin } from './admin-access.ts';
import { inNotifyTransaction, listRecords, nowIso, oneRecord, type Row } from './admin-records.ts';
import {
  bodyObject, intId, oneOf, optionalBoolean, optionalObject, optionalString, rejectUnknown, requiredString,
} from './payload-fields.ts';
import { CHANNEL_IDS, type Channel, type ProviderType } from './channels/registry.ts';
import { validateProviderConfig, validateProviderType } from './provider-config.ts';
import { parseJsonColumn } from './providers-store.ts';
import { MASK, maskObject, sealObject, sealValue } from './secrets.ts';

const COLLECTION = 'svc_notify_providers';
const LABEL = 'Provider';
const WRITABLE = ['name', 'channel', 'type', 'config', 'is_primary', 'enabled', 'webhook_enabled', 'webhook_secret'];
const WEBHOOK_SECRET_MAX = 128;

/** A provider record as the API shows it. */
export function shownProvider(row: Row): Row {
  const out = { ...row };
  if ('config' in out) {
    const config = parseJsonColumn(out.config);
    out.config = config && typeof config === 'object' && !Array.isArray(config) ? maskObject(config as Record<string, unknown>) : config;
  }
  if (typeof out.webhook_secret === 'string' && out.webhook_secret !== '') out.webhook_secret = MASK;
  return out;
}

export async function listProviders(ctx: ServiceContext, input: QueryInput): Promise<{ data: Row[]; meta?: Row }> {
  requireAdmin(ctx);
  const res = await listRecords(ctx, COLLECTION, input);
  return { ...res, data: res.data.map(shownProvider) };
}

function providerKey(raw: string): number {
  const id = intId(raw);
  if (id === null) throw new NotFoundError(`${LABEL} "${raw.slice(0, 64)}" doesn't exist.`);
  return id;
}

export async function readProvider(ctx: ServiceContext, rawId: string, input: QueryInput): Promise<Row> {
  requireAdmin(ctx);
  return shownProvider(await oneRecord(ctx, COLLECTION, providerKey(rawId), input, LABEL));
}

function webhookSecret(v: unknown, secret: string): string | null | undefined {
  const s = optionalString('webhook_secret', v, WEBHOOK_SECRET_MAX);
  if (s === MASK) throw new InvalidPayloadError('"webhook_secret" has no stored value to keep.', { field: 'webhook_secret' });
  if (s === undefined || s === null || s === '') return s === '' ? null : s;
  return sealValue(s, secret);
}

/** Demotes the channel's primary (other than `except`), recorded as updates. Caller holds the transaction. */
async function demoteChannel(trx: ServiceContext, channel: Channel, except: number | null): Promise<void> {
  await run(trx.db, 'select pg_advisory_xact_lock(hashtext($1))', [`svc_notify_primary:${channel}`]);
  const rows = await run<{ id: number }>(trx.db,
    'select id from svc_notify_providers where channel = $1 and is_primary and id is distinct from $2 for update', [channel, except]);
  if (rows.length) await updateItems(trx, COLLECTION, rows.map((r) => r.id), { is_primary: false, updated_at: nowIso() });
}

export async function createProvider(ctx: ServiceContext, body: unknown): Promise<number> {
  requireAdmin(ctx);
  const input = bodyObject(body);
  rejectUnknown(input, WRITABLE);
  const secret = ctx.config.secret;
  const name = requiredString('name', input.name);
  const channel = oneOf('channel', input.channel, CHANNEL_IDS);
  const type = validateProviderType(channel, input.type);
  const config = validateProviderConfig(channel, type, keepMasked(optionalObject('config', input.config) ?? {}, {}));
  const isPrimary = optionalBoolean('is_primary', input.is_primary) ?? false;
  const payload: Row = {
    name, channel, type, config: sealObject(config, secret), is_primary: isPrimary,
    enabled: optionalBoolean('enabled', input.enabled) ?? true,
    webhook_enabled: optionalBoolean('webhook_enabled', input.webhook_enabled) ?? false,
    webhook_secret: webhookSecret(input.webhook_secret, secret) ?? null,
  };
  return inNotifyTransaction(ctx, async (trx) => {
    if (isPrimary) await demoteChannel(trx, channel, null);
    return Number(await createItem(trx, COLLECTION, payload));
  });
}

interface StoredProvider { id: number; channel: Channel; type: ProviderType | null; config: Record<string, unknown>; is_primary: boolean; webhook_secret: string | null }

async function lockProvider(trx: ServiceContext, id: number): Promise<StoredProvider> {
  const [row] = await run<Row>(trx.db, 'select id, channel, type, config, is_primary, webhook_secret from svc_notify_providers where id = $1 for update', [id]);
  if (!row) throw new NotFoundError(`${LABEL} "${id}" doesn't exist.`);
  const config = parseJsonColumn(row.config);
  return {
    id, channel: row.channel as Channel, type: (row.type ?? null) as ProviderType | null,
    config: config && typeof config === 'object' && !Array.isArray(config) ? (config as Record<string, unknown>) : {},
    is_primary: row.is_primary === true, webhook_secret: typeof row.webhook_secret === 'string' ? row.webhook_secret : null,
  };
}

/** Masked values of an update replaced by the stored (sealed) ones. */
function keepMasked(update: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
  const out = { ...update };
  for (const [k, v] of Object.entries(out)) {
    if (v !== MASK) continue;
    if (typeof stored[k] !== 'string') throw new InvalidPayloadError(`"config.${k.slice(0, 64)}" has no stored value to keep.`, { field: `config.${k.slice(0, 64)}` });
    out[k] = stored[k];
  }
  return out;
}

export async function updateProvider(ctx: ServiceContext, rawId: string, body: unknown): Promise<number> {
  requireAdmin(ctx);
  const id = providerKey(rawId);
  const input = bodyObject(body);
  rejectUnknown(input, WRITABLE);
  const secret = ctx.config.secret;
  return inNotifyTransaction(ctx, async (trx) => {
    const stored = await lockProvider(trx, id);
    const changes: Row = {};
    if (input.channel !== undefined && input.channel !== stored.channel) {
      throw new InvalidPayloadError('"channel" cannot be changed; create a new provider instead.', { field: 'channel' });
    }
    if (input.name !== undefined) changes.name = requiredString('name', input.name);
    const typeGiven = 'type' in input;
    const type = typeGiven ? validateProviderType(stored.channel, input.type) : stored.type;
    if (typeGiven && type !== stored.type) changes.type = type;
    if (input.config !== undefined || (typeGiven && type !== stored.type)) {
      const update = optionalObject('config', input.config) ?? {};
      // A partial config keeps the stored settings it doesn't mention; a different type starts afresh.
      const merged = type === stored.type ? { ...stored.config, ...update } : update;
      changes.config = sealObject(validateProviderConfig(stored.channel, type, keepMasked(merged, stored.config)), secret);
    }
    for (const k of ['enabled', 'webhook_enabled'] as const) {
      const v = optionalBoolean(k, input[k]);
      if (v !== undefined) changes[k] = v;
    }
    if (input.webhook_secret !== undefined && input.webhook_secret !== MASK) changes.webhook_secret = webhookSecret(input.webhook_secret, secret) ?? null;
    const primary = optionalBoolean('is_primary', input.is_primary);
    if (primary === true && !stored.is_primary) {
      await demoteChannel(trx, stored.channel, id);
      changes.is_primary = true;
    } else if (primary === false && stored.is_primary) {
      changes.is_primary = false;
    }
    if (Object.keys(changes).length === 0) return id;
    changes.updated_at = nowIso();
    await updateItem(trx, COLLECTION, id, changes);
    return id;
  });
}

/** PATCH /notify/providers/{id}/primary. */
export async function promoteProvider(ctx: ServiceContext, rawId: string): Promise<number> {
  requireAdmin(ctx);
  const id = providerKey(rawId);
  return inNotifyTransaction(ctx, async (trx) => {
    const stored = await lockProvider(trx, id);
    await demoteChannel(trx, stored.channel, id);
    if (!stored.is_primary) await updateItem(trx, COLLECTION, id, { is_primary: true, updated_at: nowIso() });
    return id;
  });
}

export async function deleteProvider(ctx: ServiceContext, rawId: string): Promise<void> {
  requireAdmin(ctx);
  const id = providerKey(rawId);
  await inNotifyTransaction(ctx, async (trx) => {
    await lockProvider(trx, id);
    const refs = await run<{ template_id: string }>(trx.db,
      'select distinct template_id from svc_notify_template_contents where provider_id = $1 order by template_id limit 6', [id]);
    if (refs.length) {
      const names = refs.slice(0, 5).map((r) => `"${r.template_id}"`).join(', ') + (refs.length > 5 ? ', ...' : '');
      throw new InvalidPayloadError(`${LABEL} ${id} is still used by template contents (templates ${names}); delete those contents or point them to another provider first.`, { field: 'id' });
    }
    await deleteItem(trx, COLLECTION, id);
  });
}
