/** Reading notification providers for sending and webhook verification: config and webhook_secret decrypted
 * (SECRET, core/notify/secrets.ts). Never hand these records to an HTTP answer; the admin API masks them. */
import { run, type Executor } from '../db/database.ts';
import type { Channel, ProviderType } from './channels/registry.ts';
import { openObject, openValue } from './secrets.ts';

export interface NotifyProvider { id: number; name: string; channel: Channel; type: ProviderType | null; config: Record<string, unknown>; is_primary: boolean; enabled: boolean; webhook_enabled: boolean; webhook_secret: string | null }

export const PROVIDER_COLUMNS = 'id, name, channel, type, config, is_primary, enabled, webhook_enabled, webhook_secret';

export function parseJsonColumn(value: unknown): unknown {
  if (typeof value === 'string') {
    try { return JSON.parse(value); } catch { return value; }
  }
  return value;
}

/** A stored row as a NotifyProvider, still sealed (config secrets and webhook_secret encrypted). */
export function sealedProvider(row: Record<string, unknown>): NotifyProvider {
  const config = parseJsonColumn(row.config);
  return {
    id: Number(row.id),
    name: String(row.name),
    channel: row.channel as Channel,
    type: (row.type ?? null) as ProviderType | null,
    config: config && typeof config === 'object' && !Array.isArray(config) ? (config as Record<string, unknown>) : {},
    is_primary: row.is_primary === true,
    enabled: row.enabled === true,
    webhook_enabled: row.webhook_enabled === true,
    webhook_secret: typeof row.webhook_secret === 'string' ? row.webhook_secret : null,
  };
}

function opened(row: Record<string, unknown>, secret: string): NotifyProvider {
  const p = sealedProvider(row);
  const ws = openValue(p.webhook_secret, secret);
  return { ...p, config: openObject(p.config, secret), webhook_secret: typeof ws === 'string' ? ws : null };
}

/** Decrypted config and webhook_secret (for sending and webhook verification; never for HTTP answers). */
export async function loadProvider(db: Executor, secret: string, id: number): Promise<NotifyProvider | null> {
  if (!Number.isSafeInteger(id)) return null;
  const [row] = await run(db, `select ${PROVIDER_COLUMNS} from svc_notify_providers where id = $1`, [id]);
  return row ? opened(row, secret) : null;
}

/** The enabled primary provider of a channel, decrypted. */
export async function primaryProvider(db: Executor, secret: string, channel: Channel): Promise<NotifyProvider | null> {
  const [row] = await run(db, `select ${PROVIDER_COLUMNS} from svc_notify_providers where channel = $1 and is_primary and enabled limit 1`, [channel]);
  return row ? opened(row, secret) : null;
}

/** Every enabled provider, decrypted, by id. */
export async function enabledProviders(db: Executor, secret: string): Promise<NotifyProvider[]> {
  const rows = await run(db, `select ${PROVIDER_COLUMNS} from svc_notify_providers where enabled order by id`);
  return rows.map((r) => opened(r, secret));
}
