/** Every JSON endpoint the functions half serves, each group of ./groups.ts imported with this module (top-level
 * await) and mounted in the list's order: the eager mount of container/app.ts (the apps the tests build). */
import { eagerMount, type MountRoutes } from '../http/lazy-routes.ts';
import { FUNCTION_ROUTE_GROUPS } from './groups.ts';

export const mountFunctionRoutes: MountRoutes = await eagerMount(FUNCTION_ROUTE_GROUPS);
