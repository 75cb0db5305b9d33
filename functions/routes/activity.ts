/** GET /activity, /activity/{id}, /revisions, /revisions/{id} (SPEC.md > Activity): read-only, standard
 * query parameters, permissions applied (app users see their own activity through the built-in grant). */
import type { Hono } from 'hono';
import { SYSTEM_COLLECTIONS } from '../../core/system/collections.ts';
import type { AppEnv } from '../http/env.ts';
import { mountSystemCollection } from './system-collections.ts';

export function mountActivityRoutes(app: Hono<AppEnv>): void {
  for (const def of SYSTEM_COLLECTIONS) if (def.readOnly) mountSystemCollection(app, def);
}
