/** Enforced two-factor set-up (svc_roles.enforce_tfa, or svc_policies.enforce_tfa of a policy of the user's role
 * or of the user): a user it applies to who has no two-factor yet gets, at login and at every refresh until they
 * have one, an access token limited to enrolling (claim `tfa_setup_required`). That token may only set up
 * two-factor, read its own user, refresh and log out; every other request answers 403 saying why. Once
 * two-factor is on, a refresh (or a new login, with a code) gives a full token. */
import { ForbiddenError } from '../errors.ts';

/** Whether two-factor is enforced for the user `u` (svc_users) with role `r` (svc_roles, left joined). */
export const TFA_ENFORCED_SQL = `(coalesce(r.enforce_tfa, false) or exists (
    select 1 from svc_access a join svc_policies p on p.id = a.policy
    where p.enforce_tfa and (a.role = u.role or a."user" = u.id)))`;

/** Whether `u` has no working two-factor (a secret awaiting its first code does not count). */
export const TFA_MISSING_SQL = 'not (u.tfa_secret is not null and coalesce(u.tfa_enabled, false))';

/** What a limited token may call: method and exact path. */
const ALLOWED = new Set([
  'POST /users/me/tfa/generate',
  'POST /users/me/tfa/enable',
  'GET /users/me',
  'GET /auth/me',
  'POST /auth/refresh',
  'POST /auth/logout',
]);

export const TFA_SETUP_REQUIRED_MESSAGE = 'Two-factor authentication must be set up first: this token may only call '
  + 'POST /users/me/tfa/generate, POST /users/me/tfa/enable, GET /users/me, GET /auth/me, POST /auth/refresh and '
  + 'POST /auth/logout. Refresh or log in again once two-factor is on.';

/** Refuses a request of a limited token outside the enrolment calls. */
export function checkTfaSetupRequest(method: string, path: string): void {
  if (!ALLOWED.has(`${method.toUpperCase()} ${path}`)) throw new ForbiddenError(TFA_SETUP_REQUIRED_MESSAGE);
}
