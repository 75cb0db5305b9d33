/** /access: the links of policies to roles and users. */
import type { Hono } from 'hono';
import { createAccess, deleteAccess, listAccess, readAccess, updateAccess } from '../../core/admin/access-records.ts';
import type { AppEnv } from '../http/env.ts';
import { mountRecordRoutes } from '../http/record-routes.ts';

export function mountAccessRoutes(app: Hono<AppEnv>): void {
  mountRecordRoutes(app, '/access', { list: listAccess, read: readAccess, create: createAccess, update: updateAccess, remove: deleteAccess });
}
