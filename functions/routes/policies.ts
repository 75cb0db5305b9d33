/** /policies: writes admin-only; reads under permissions, each policy with its `permissions` nested. */
import type { Hono } from 'hono';
import { createPolicy, deletePolicy, listPolicies, readPolicy, updatePolicy } from '../../core/admin/policies.ts';
import type { AppEnv } from '../http/env.ts';
import { mountRecordRoutes } from '../http/record-routes.ts';

export function mountPolicyRoutes(app: Hono<AppEnv>): void {
  mountRecordRoutes(app, '/policies', { list: listPolicies, read: readPolicy, create: createPolicy, update: updatePolicy, remove: deletePolicy });
}
