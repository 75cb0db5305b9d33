import type { Accountability } from '../../core/access/accountability.ts';
import type { Services } from '../../core/services.ts';

/** Per-request values set by the middleware chain. */
export interface AppEnv {
  Variables: {
    services: Services;
    accountability: Accountability;
  };
}
