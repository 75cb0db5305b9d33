/** The user fields whose change ends the user's sessions (core/auth/user-revocation.ts): the password, the
 * status (a suspension), the role, and two-factor (a reset). Compared before and after a write, so setting a
 * field to the value it already has ends nothing; a new password always differs (every hash is salted). */
import type { Executor } from '../db/database.ts';
import type { UserPayload } from './payload.ts';
import { selectSessionFieldStates } from './table.ts';

const FIELDS = ['password', 'status', 'role', 'tfa_secret', 'tfa_enabled'] as const;

export function touchesSessionFields(payload: UserPayload): boolean {
  return FIELDS.some((f) => payload[f] !== undefined);
}

export type SessionFieldState = Map<string, string>;

/** The watched fields of these users, one comparable string per user. */
export async function sessionFieldState(db: Executor, ids: readonly string[]): Promise<SessionFieldState> {
  if (ids.length === 0) return new Map();
  const rows = await selectSessionFieldStates(db, [...new Set(ids)]);
  return new Map(rows.map((r) => [r.id, r.state]));
}

/** Users present before whose watched fields differ now (rows created or deleted meanwhile are not changes). */
export function changedUsers(before: SessionFieldState, after: SessionFieldState): string[] {
  return [...after].filter(([id, state]) => before.has(id) && before.get(id) !== state).map(([id]) => id);
}
