/** The settings singleton (SPEC.md > Settings, id=1): read and update under the caller's permissions (app
 * users read it through the built-in grant; updates need an explicit permission, so by default admins only).
 * Authentication reads settings (public_role) through caches keyed on the schema version, so every update
 * bumps it. */
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { readItemData, type QueryInput } from '../items/read.ts';
import { updateItem } from '../items/write/index.ts';
import { isPlainObject } from '../items/write/payload.ts';
import type { Query } from '../query/types.ts';
import { checkSettingsPayload } from './settings-rules.ts';
import { systemContext } from './service.ts';

const COLLECTION = 'svc_settings';
const KEY = 1;

export async function readSettings(base: ServiceContext, input: QueryInput | Query): Promise<string> {
  const data = await readItemData(systemContext(base), COLLECTION, KEY, input);
  if (data === null) throw new ForbiddenError();
  return `{"data":${data}}`;
}

/** Updates the settings; the JSON text of them read back, or null when the caller may not read them. */
export async function updateSettings(base: ServiceContext, payload: unknown, input: QueryInput | Query, invalidate: () => Promise<void>): Promise<string | null> {
  if (!isPlainObject(payload)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  checkSettingsPayload(payload, base.config.files.assetsTransformImageMaxDimension);
  const ctx = systemContext(base);
  await updateItem(ctx, COLLECTION, KEY, payload);
  await invalidate();
  try {
    const data = await readItemData(ctx, COLLECTION, KEY, input);
    return data === null ? null : `{"data":${data}}`;
  } catch (err) {
    if (err instanceof ForbiddenError) return null;
    throw err;
  }
}

/** Changes the settings inside the caller's transaction (`ctx.db`), checked as PATCH /settings checks them; the
 * caller bumps the schema version after commit (a schema apply does). */
export async function changeSettings(ctx: ServiceContext, payload: Record<string, unknown>): Promise<void> {
  checkSettingsPayload(payload, ctx.config.files.assetsTransformImageMaxDimension);
  await updateItem(systemContext(ctx), COLLECTION, KEY, payload);
}
