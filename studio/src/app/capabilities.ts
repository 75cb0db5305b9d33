/** What the signed-in user may do beyond collections: admin access (GET /policies/me/globals) and the app
 * permissions of the workflow and versioning modules (GET /app-permissions/me, e.g. `workflow:participate`). Both
 * are read beside GET /users/me at sign-in (./prefetch.ts) and decide which modules the Studio offers; the API has
 * the last word on every action. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { usePolicyGlobals } from '../content/schema.ts';

export type AppPermission =
  | 'workflow:view' | 'workflow:start' | 'workflow:participate' | 'workflow:manage'
  | 'versioning:view' | 'versioning:create' | 'versioning:manage';

export const appPermissionsQuery = queryOptions({
  queryKey: ['app-permissions-me'],
  queryFn: ({ signal }) => request<AppPermission[]>('GET', '/app-permissions/me', { signal }),
});

export interface Capabilities {
  /** Both answers are in. */
  ready: boolean;
  admin: boolean;
  has(permission: AppPermission): boolean;
}

export function useCapabilities(): Capabilities {
  const globals = usePolicyGlobals();
  const app = useQuery(appPermissionsQuery);
  const admin = globals.data?.admin_access ?? false;
  const granted = app.data ?? [];
  return {
    ready: Boolean(globals.data && app.data),
    admin,
    has: (permission) => admin || granted.includes(permission),
  };
}
