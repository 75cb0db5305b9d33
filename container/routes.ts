/** Routes served by the long-running container (assets, tus and multipart uploads arrive with the files issue). */
import type { Hono } from 'hono';
import type { AppEnv } from '../functions/http/env.ts';

export function mountContainerRoutes(_app: Hono<AppEnv>): void {}
