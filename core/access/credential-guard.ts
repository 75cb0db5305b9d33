/** Under impersonation (an access token carrying `impersonated_by`) no credential may be changed: whatever
 * the impersonator set (a static token, a password, an email to reset the password through, a two-factor
 * secret, an external identity) would outlast /auth/impersonate/stop. Checked where every svc_users payload
 * is validated (core/items/write create.ts and update.ts, which the users service, PATCH /users/me, /items
 * and nested writes all go through) and by the two-factor endpoints, which write without the items service. */
import { ForbiddenError } from '../errors.ts';
import type { Accountability } from './accountability.ts';

/** Sign-in credentials and identity of svc_users. `email` only on update: a new account's address is no
 * credential until someone sets a password, which is refused itself. */
const CREDENTIALS = ['password', 'token', 'tfa_secret', 'tfa_enabled', 'provider', 'external_identifier', 'auth_data'] as const;

export const IMPERSONATION_CREDENTIALS_MESSAGE =
  'Credentials (password, static token, email, two-factor, external identity) cannot be changed while impersonating a user.';

export function refuseUnderImpersonation(accountability: Accountability): void {
  if (accountability.impersonatedBy) throw new ForbiddenError(IMPERSONATION_CREDENTIALS_MESSAGE);
}

export function guardCredentialWrite(accountability: Accountability, collection: string, action: 'create' | 'update', payload: Record<string, unknown>): void {
  if (!accountability.impersonatedBy || collection !== 'svc_users') return;
  const touched = CREDENTIALS.some((f) => payload[f] !== undefined) || (action === 'update' && payload.email !== undefined);
  if (touched) throw new ForbiddenError(IMPERSONATION_CREDENTIALS_MESSAGE);
}
