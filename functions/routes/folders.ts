/** /folders CRUD (Directus' shapes) on the system-collection routes, with parent cycles refused (400) before
 * any write: creates that name their own id as parent, updates by id, by keys and batches. */
import type { Context, Hono, Next } from 'hono';
import { assertNoFolderCycle, parentChanges, type ParentChange } from '../../core/files/folders.ts';
import { isPlainObject } from '../../core/items/write/payload.ts';
import { FOLDERS } from '../../core/system/collections.ts';
import { readBounded } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';
import { mountSystemCollection } from './system-collections.ts';

/** The JSON body of a copy of the request (the handler after us reads the original, with its own checks and
 * errors), bounded by MAX_PAYLOAD_SIZE; undefined when it is not JSON or too large (the handler answers). */
async function peekJson(c: Context<AppEnv>): Promise<unknown> {
  const body = c.req.raw.clone().body;
  if (!body) return undefined;
  const bytes = await readBounded(body, c.get('services').config.maxPayloadSize);
  if (bytes === null) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

async function changesOf(c: Context<AppEnv>, id: string | null): Promise<ParentChange[]> {
  const payload = await peekJson(c);
  if (id !== null) return parentChanges([id], payload);
  const items = Array.isArray(payload) ? payload : [payload];
  const out: ParentChange[] = [];
  for (const item of items) {
    if (!isPlainObject(item)) continue;
    if (Array.isArray(item.keys)) out.push(...parentChanges(item.keys, item.data));
    else if (typeof item.id === 'string') out.push(...parentChanges([item.id], item));
  }
  return out;
}

function guard(withId: boolean) {
  return async (c: Context<AppEnv>, next: Next): Promise<void> => {
    const changes = await changesOf(c, withId ? c.req.param('id') ?? null : null);
    await assertNoFolderCycle(await serviceContext(c), changes);
    await next();
  };
}

export function mountFolderRoutes(app: Hono<AppEnv>): void {
  app.post('/folders', guard(false));
  app.patch('/folders', guard(false));
  app.patch('/folders/:id', guard(true));
  mountSystemCollection(app, FOLDERS);
}
