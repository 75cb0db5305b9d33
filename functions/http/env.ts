import type { Accountability } from '../../core/access/accountability.ts';
import type { Services } from '../../core/services.ts';
import type { SchemaOverview } from '../../core/schema/types.ts';

/** Per-request values set by the middleware chain. */
export interface AppEnv {
  Variables: {
    services: Services;
    accountability: Accountability;
    /** The schema overview read once at the start of the request. */
    schema: SchemaOverview;
  };
}
