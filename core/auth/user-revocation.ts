/** Ending a user's sessions when their credentials or rights change: a password change or reset, a
 * suspension (any status change), a role change, a two-factor reset. Every refresh token of the user is
 * deleted (refreshing it answers 401 TOKEN_REVOKED) and access tokens signed before are refused
 * (core/auth/token-cutoff.ts). `keep` is the caller's own session (Accountability.session), which survives
 * a change made by the user themselves; it cannot match another user's session.
 *
 * Two steps, so a write's transaction decides: the sessions go inside it (a rolled-back change keeps them),
 * the store entries after commit and before the schema version bump that makes instances read them. */
import type { Executor } from '../db/database.ts';
import type { ConfigPort, SchemaPort, StorePort } from '../ports.ts';
import { rememberRevoked } from './revoked.ts';
import { deleteUserSessions } from './sessions.ts';
import { cutAccessTokens } from './token-cutoff.ts';

export interface Revocation {
  users: string[];
  keep: string | null;
  deleted: { token: string; expires: Date }[];
}

/** Step 1, in the change's transaction. */
export async function revokeSessions(ex: Executor, users: readonly string[], keep: string | null): Promise<Revocation> {
  const unique = [...new Set(users)];
  return { users: unique, keep, deleted: await deleteUserSessions(ex, unique, keep) };
}

/** Step 2, after commit; the caller then bumps the schema version (services.schema.invalidate()). */
export async function publishRevocation(services: ConfigPort & StorePort, revocation: Revocation | null): Promise<void> {
  if (!revocation || revocation.users.length === 0) return;
  const { store, config } = services;
  try {
    await cutAccessTokens(store, revocation.users, revocation.keep, config.accessTokenTtlMs);
  } catch (err) {
    // The change has committed and the refresh tokens are gone; only access tokens already out live on
    // (at most ACCESS_TOKEN_TTL). Failing the request now would misreport a change that happened.
    if (config.logLevel !== 'silent' && config.logLevel !== 'fatal') console.error('Could not store the access-token cut-off:', err);
  }
  // Only the error code of a later refresh depends on this (TOKEN_REVOKED rather than INVALID_CREDENTIALS).
  await Promise.all(revocation.deleted.map((row) => rememberRevoked(store, row.token, row.expires)));
}

/** Both steps for a change made outside a caller's transaction, then the version bump. */
export async function revokeUserAccess(services: ConfigPort & SchemaPort & StorePort, ex: Executor, users: readonly string[], keep: string | null): Promise<void> {
  await publishRevocation(services, await revokeSessions(ex, users, keep));
  await services.schema.invalidate();
}
