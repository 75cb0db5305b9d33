/** The route groups of ./index.ts for an app that imports them when first needed (functions/http/lazy-routes.ts): one
 * group per module, in the order ./index.ts mounts them, registered from the generated ./manifest.ts. The functions
 * half uses it (a Lambda cold start then loads no group before a request reaches it); the container and standalone
 * mount ./index.ts directly. test/lambda-routes.test.ts checks that both register the same routes in the same order
 * and that the manifest is current (`npx tsx functions/routes/manifest-write.ts` regenerates it). */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { mountLazyRoutes, type LazyRoutes, type RouteGroup } from '../http/lazy-routes.ts';
import { ROUTE_MANIFEST } from './manifest.ts';

export const FUNCTION_ROUTE_GROUPS: readonly RouteGroup[] = [
  { name: 'server', load: async () => (await import('./server.ts')).mountServerRoutes },
  { name: 'collections', load: async () => (await import('./collections.ts')).mountCollectionRoutes },
  { name: 'fields', load: async () => (await import('./fields.ts')).mountFieldRoutes },
  { name: 'relations', load: async () => (await import('./relations.ts')).mountRelationRoutes },
  { name: 'items', load: async () => (await import('./items.ts')).mountItemReadRoutes },
  { name: 'items-write', load: async () => (await import('./items-write.ts')).mountItemsWriteRoutes },
  { name: 'auth', load: async () => (await import('./auth.ts')).mountAuthRoutes },
  { name: 'shares-auth', load: async () => (await import('./shares-auth.ts')).mountShareAuthRoutes },
  { name: 'roles', load: async () => (await import('./roles.ts')).mountRoleRoutes },
  { name: 'policies', load: async () => (await import('./policies.ts')).mountPolicyRoutes },
  { name: 'permissions', load: async () => (await import('./permissions.ts')).mountPermissionRoutes },
  { name: 'access', load: async () => (await import('./access.ts')).mountAccessRoutes },
  { name: 'app-permissions', load: async () => (await import('./app-permissions.ts')).mountAppPermissionRoutes },
  { name: 'impersonation', load: async () => (await import('./impersonation.ts')).mountImpersonationRoutes },
  { name: 'system-collections', load: async () => (await import('./system-collections.ts')).mountSystemCollectionRoutes },
  { name: 'activity', load: async () => (await import('./activity.ts')).mountActivityRoutes },
  { name: 'settings', load: async () => (await import('./settings.ts')).mountSettingsRoutes },
  { name: 'users', load: async () => (await import('./users.ts')).mountUserRoutes },
  { name: 'auth-password', load: async () => (await import('./auth-password.ts')).mountPasswordResetRoutes },
  { name: 'storage-providers', load: async () => (await import('./storage-providers.ts')).mountStorageProviderRoutes },
  { name: 'files', load: async () => (await import('./files.ts')).mountFileRoutes },
  { name: 'workflows', load: async () => (await import('./workflows.ts')).mountWorkflowRoutes },
  { name: 'workflow-tasks', load: async () => (await import('./workflow-tasks.ts')).mountWorkflowTaskRoutes },
  { name: 'workflow-instances', load: async () => (await import('./workflow-instances.ts')).mountWorkflowInstanceRoutes },
  { name: 'versions', load: async () => (await import('./versions.ts')).mountVersionRoutes },
  { name: 'notify-logs', load: async () => (await import('./notify-logs.ts')).mountNotifyLogRoutes },
  { name: 'notify-validate-template', load: async () => (await import('./notify-validate-template.ts')).mountNotifyValidateTemplateRoutes },
  { name: 'notify-webhooks', load: async () => (await import('./notify-webhooks.ts')).mountNotifyWebhookRoutes },
  { name: 'notify-admin', load: async () => (await import('./notify-admin.ts')).mountNotifyAdminRoutes },
  { name: 'notify-send', load: async () => (await import('./notify-send.ts')).mountNotifySendRoutes },
  { name: 'graphql', load: async () => (await import('./graphql.ts')).mountGraphqlRoutes },
  { name: 'openapi', load: async () => (await import('./openapi.ts')).mountOpenApiRoutes },
  { name: 'metrics', load: async () => (await import('./metrics.ts')).mountMetricsRoutes },
  { name: 'extensions', load: async () => (await import('./extensions.ts')).mountExtensionRoutes },
];

/** `preload`: import every group in the background now (a long-running server); without it each group is imported
 * by the first request that reaches it (Lambda). */
export function mountLazyFunctionRoutes(app: Hono<AppEnv>, opts: { preload?: boolean } = {}): LazyRoutes {
  return mountLazyRoutes(app, FUNCTION_ROUTE_GROUPS, ROUTE_MANIFEST, opts);
}
