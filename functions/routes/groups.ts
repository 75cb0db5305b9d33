/** The route groups of the functions half, in mount order: the one list the eager mount (./index.ts), the lazy mount
 * (./lazy.ts) and the route manifest (./manifest.ts, written by `npx tsx scripts/route-manifest.ts`) are derived from.
 * A new group is one record here, then a manifest run (test/lambda/routes.test.ts fails until then). Each record
 * imports its module only when loaded, so a Lambda cold start reads none of them. */
import type { RouteGroup } from '../http/lazy-routes.ts';

export const FUNCTION_ROUTE_GROUPS: readonly RouteGroup[] = [
  { name: 'server', load: async () => (await import('./server.ts')).mountServerRoutes },
  { name: 'collections', load: async () => (await import('./collections.ts')).mountCollectionRoutes },
  { name: 'fields', load: async () => (await import('./fields.ts')).mountFieldRoutes },
  { name: 'relations', load: async () => (await import('./relations.ts')).mountRelationRoutes },
  { name: 'items', load: async () => (await import('./items.ts')).mountItemReadRoutes },
  { name: 'items-write', load: async () => (await import('./items-write.ts')).mountItemsWriteRoutes },
  { name: 'auth', load: async () => (await import('./auth.ts')).mountAuthRoutes },
  { name: 'auth-sso', load: async () => (await import('./auth-sso.ts')).mountSsoRoutes },
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
  { name: 'auth-providers', load: async () => (await import('./auth-providers.ts')).mountAuthProviderRoutes },
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
