/** The owner of svc_extension_settings' statements. Records are keyed by `extension_key` (storage providers, sign-on
 * providers, ...) and named uniquely within a key; their services (core/storage/providers.ts,
 * core/auth/sso/providers.ts), registries and the extensions' read API go through these functions. */
import { run, type Executor } from '../db/database.ts';

export interface ExtensionSettingRow { id: number; extension_key: string; name: string | null; value: unknown }

const COLUMNS = 'id, extension_key, name, value';

/** A stored value as an object (a json column reads back as text on some drivers). */
export function settingValue(value: unknown): Record<string, unknown> {
  const v = typeof value === 'string' ? JSON.parse(value) : value;
  return (v ?? {}) as Record<string, unknown>;
}

/** The records of one key (every record when `key` is null), oldest first. */
export function listSettings(ex: Executor, key: string | null): Promise<ExtensionSettingRow[]> {
  return key === null
    ? run<ExtensionSettingRow>(ex, `select ${COLUMNS} from svc_extension_settings order by id`)
    : run<ExtensionSettingRow>(ex, `select ${COLUMNS} from svc_extension_settings where extension_key = $1 order by id`, [key]);
}

/** `lock`: the row is taken `for update` in the caller's transaction (a singleton record changed read-modify-write). */
export async function settingByName(ex: Executor, key: string, name: string, opts: { lock?: boolean } = {}): Promise<ExtensionSettingRow | undefined> {
  const [row] = await run<ExtensionSettingRow>(ex,
    `select ${COLUMNS} from svc_extension_settings where extension_key = $1 and name = $2${opts.lock ? ' for update' : ''}`, [key, name]);
  return row;
}

/** The record `id` of `key`, locked for an update in the caller's transaction. */
export async function lockSetting(trx: Executor, key: string, id: number): Promise<ExtensionSettingRow | undefined> {
  const [row] = await run<ExtensionSettingRow>(trx, `select ${COLUMNS} from svc_extension_settings where id = $1 and extension_key = $2 for update`, [id, key]);
  return row;
}

export async function insertSetting(ex: Executor, key: string, name: string, value: Record<string, unknown>): Promise<number> {
  const [row] = await run<{ id: number }>(ex,
    'insert into svc_extension_settings (extension_key, name, value) values ($1, $2, $3) returning id', [key, name, JSON.stringify(value)]);
  return row.id;
}

export async function updateSettingValue(ex: Executor, id: number, value: Record<string, unknown>): Promise<void> {
  await run(ex, 'update svc_extension_settings set value = $2 where id = $1', [id, JSON.stringify(value)]);
}

/** Whether a record of `key` was deleted. */
export async function deleteSetting(ex: Executor, key: string, id: number): Promise<boolean> {
  return (await run(ex, 'delete from svc_extension_settings where id = $1 and extension_key = $2 returning id', [id, key])).length > 0;
}
