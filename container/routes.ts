/** Every route the long-running container serves beyond /server, each group of ./routes/groups.ts imported with this
 * module (top-level await) and mounted in the list's order: the eager mount of ./app.ts (the apps the tests build). */
import { eagerMount, type MountRoutes } from '../functions/http/lazy-routes.ts';
import { CONTAINER_ROUTE_GROUPS } from './routes/groups.ts';

export const mountContainerRoutes: MountRoutes = await eagerMount(CONTAINER_ROUTE_GROUPS);
