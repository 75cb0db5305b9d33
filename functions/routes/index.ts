/** Every JSON endpoint the functions half serves. */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { mountServerRoutes } from './server.ts';
import { mountCollectionRoutes } from './collections.ts';
import { mountFieldRoutes } from './fields.ts';
import { mountRelationRoutes } from './relations.ts';
import { mountItemReadRoutes } from './items.ts';
import { mountItemsWriteRoutes } from './items-write.ts';
import { mountAuthRoutes } from './auth.ts';
import { mountShareAuthRoutes } from './shares-auth.ts';
import { mountRoleRoutes } from './roles.ts';
import { mountPolicyRoutes } from './policies.ts';
import { mountPermissionRoutes } from './permissions.ts';
import { mountAccessRoutes } from './access.ts';
import { mountAppPermissionRoutes } from './app-permissions.ts';
import { mountImpersonationRoutes } from './impersonation.ts';
import { mountSystemCollectionRoutes } from './system-collections.ts';
import { mountActivityRoutes } from './activity.ts';
import { mountSettingsRoutes } from './settings.ts';
import { mountUserRoutes } from './users.ts';
import { mountPasswordResetRoutes } from './auth-password.ts';
import { mountStorageProviderRoutes } from './storage-providers.ts';
import { mountFileRoutes } from './files.ts';

export function mountFunctionRoutes(app: Hono<AppEnv>): void {
  mountServerRoutes(app);
  mountCollectionRoutes(app);
  mountFieldRoutes(app);
  mountRelationRoutes(app);
  mountItemReadRoutes(app);
  mountItemsWriteRoutes(app);
  mountAuthRoutes(app);
  mountShareAuthRoutes(app);
  mountRoleRoutes(app);
  mountPolicyRoutes(app);
  mountPermissionRoutes(app);
  mountAccessRoutes(app);
  mountAppPermissionRoutes(app);
  mountImpersonationRoutes(app);
  mountSystemCollectionRoutes(app);
  mountActivityRoutes(app);
  mountSettingsRoutes(app);
  mountUserRoutes(app);
  mountPasswordResetRoutes(app);
  mountStorageProviderRoutes(app);
  mountFileRoutes(app);
}
