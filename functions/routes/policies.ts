/** /policies: writes admin-only; reads under permissions, each policy with its `permissions` nested; and the caller's
 * own merged flags (/policies/me/globals). */
import type { Hono } from 'hono';
import { createPolicy, deletePolicy, listPolicies, readPolicy, updatePolicy } from '../../core/admin/policies.ts';
import { policyGlobals } from '../../core/auth/globals.ts';
import type { AppEnv } from '../http/env.ts';
import { mountRecordRoutes } from '../http/record-routes.ts';

export function mountPolicyRoutes(app: Hono<AppEnv>): void {
  app.get('/policies/me/globals', async (c) => c.json({ data: await policyGlobals(c.get('services').database.db, c.get('accountability')) }));
  mountRecordRoutes(app, '/policies', { list: listPolicies, read: readPolicy, create: createPolicy, update: updatePolicy, remove: deletePolicy });
}
