/** The routes SPEC.md marks "Auth" (any authenticated principal): an anonymous call answers 401 before the
 * handler runs, whatever the Public role's permissions grant. One table for both halves; routes join it as
 * they land. */
import type { Hono } from 'hono';
import { assertAuthenticated } from '../../core/access/authenticated.ts';
import type { AppEnv } from './env.ts';

export const AUTH_ROUTES: ReadonlyArray<readonly [method: string, path: string]> = [
  ['GET', '/auth/me'],
  ['GET', '/roles'],
  ['GET', '/roles/:id'],
  ['GET', '/policies'],
  ['GET', '/policies/:id'],
  ['GET', '/permissions/me'],
  ['GET', '/users'],
  ['GET', '/users/:id'],
  ['PATCH', '/users/me'],
  ['POST', '/users/me/tfa/generate'],
  ['POST', '/users/me/tfa/enable'],
  ['POST', '/users/me/tfa/disable'],
  ['GET', '/workflows'],
  ['POST', '/workflows'],
  ['GET', '/workflows/:id'],
  ['PATCH', '/workflows/:id'],
  ['DELETE', '/workflows/:id'],
  ['POST', '/workflows/:id/activate'],
  ['POST', '/workflows/:id/deactivate'],
  ['POST', '/workflows/:id/steps'],
  ['PATCH', '/workflows/:id/steps/:step'],
  ['DELETE', '/workflows/:id/steps/:step'],
  ['POST', '/workflows/:id/transitions'],
  ['DELETE', '/workflows/:id/transitions/:transition'],
  ['GET', '/workflow-tasks'],
  ['GET', '/workflow-tasks/count'],
  ['GET', '/workflow-tasks/all'],
  ['GET', '/workflow-instances/:id'],
  ['POST', '/workflow-instances/:id/cancel'],
  ['POST', '/workflow-instances/:id/steps/:step/:action'],
  ['POST', '/versions'],
  ['GET', '/versions'],
  ['GET', '/versions/:id'],
  ['GET', '/versions/:id/compare'],
  ['PATCH', '/versions/:id'],
  ['POST', '/versions/:id/save'],
  ['POST', '/versions/:id/submit'],
  ['POST', '/versions/:id/promote'],
  ['DELETE', '/versions/:id'],
  ['GET', '/schedules'],
  ['POST', '/schedules'],
  ['GET', '/schedules/:id'],
  ['PATCH', '/schedules/:id'],
  ['POST', '/schedules/:id/cancel'],
  ['GET', '/notify/logs'],
  ['GET', '/notify/logs/stats'],
  ['GET', '/notify/logs/:id'],
  ['PATCH', '/notify/logs/:id/cancel'],
  ['DELETE', '/notify/logs/:id'],
  ['GET', '/notify/logs/:id/events'],
  ['GET', '/notify/logs/:id/content'],
  ['POST', '/notify/validate-template'],
  ['POST', '/notify/preview'],
  ['POST', '/notify/preview/frame'],
  // Notification admin API (functions/routes/notify-admin.ts): Auth and Admin routes, and the layouts,
  // templates and contents routes SPEC.md leaves blank (admin or a permission on svc_notify_*).
  ['GET', '/notify/settings'],
  ['PATCH', '/notify/settings'],
  ['GET', '/notify/channels'],
  ['GET', '/notify/providers'],
  ['POST', '/notify/providers'],
  ['GET', '/notify/providers/:id'],
  ['PATCH', '/notify/providers/:id'],
  ['PATCH', '/notify/providers/:id/primary'],
  ['DELETE', '/notify/providers/:id'],
  ['GET', '/notify/layouts'],
  ['POST', '/notify/layouts'],
  ['GET', '/notify/layouts/:id'],
  ['PATCH', '/notify/layouts/:id'],
  ['DELETE', '/notify/layouts/:id'],
  ['GET', '/notify/templates'],
  ['POST', '/notify/templates'],
  ['GET', '/notify/templates/:id'],
  ['PATCH', '/notify/templates/:id'],
  ['DELETE', '/notify/templates/:id'],
  ['GET', '/notify/templates/:id/contents'],
  ['POST', '/notify/templates/:id/contents'],
  ['PATCH', '/notify/contents/:id'],
  ['DELETE', '/notify/contents/:id'],
  // Sending (functions/routes/notify-send.ts): trigger is Auth (admins, or create on svc_notify_logs), test-send Admin.
  ['POST', '/notify/trigger'],
  ['POST', '/notify/test-send'],
  // GraphQL (functions/routes/graphql.ts): any authenticated principal; its schema follows its permissions.
  ['GET', '/graphql'],
  ['POST', '/graphql'],
  ['GET', '/graphql/system'],
  ['POST', '/graphql/system'],
  // Extension records (functions/routes/extensions.ts).
  ['GET', '/extensions'],
  ['GET', '/extensions/:id'],
];

export function requireAuthOnAuthRoutes(app: Hono<AppEnv>): void {
  for (const [method, path] of AUTH_ROUTES) {
    app.on(method, path, async (c, next) => {
      assertAuthenticated(c.get('accountability'));
      await next();
    });
  }
}
