/** Checks shared by every way a user record is written: email shape and uniqueness, password policy,
 * the require_password_change rule. */
import type { Executor } from '../db/database.ts';
import { InvalidPayloadError, RecordNotUniqueError } from '../errors.ts';
import { checkPasswordPolicy } from '../auth/password-policy.ts';
import { isPlainObject } from '../items/write/payload.ts';
import { emailTaken } from './table.ts';

export type UserPayload = Record<string, unknown>;

/** Fields a user may change on their own record (SPEC.md > Users rule 1); anything else is dropped. */
export const SELF_EDITABLE = [
  'first_name', 'last_name', 'email', 'password', 'avatar', 'description', 'language', 'theme', 'appearance', 'token',
] as const;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(email: unknown, field = 'email'): string {
  if (typeof email !== 'string' || !EMAIL.test(email) || email.length > 128) throw new InvalidPayloadError(`"${field}" must be a valid email`);
  return email;
}

export function asPayload(value: unknown): UserPayload {
  if (!isPlainObject(value)) throw new InvalidPayloadError('Invalid payload. Items must be objects.');
  return value;
}

/** Email (when present) is well formed; a password (when set) matches the policy. */
export function checkFields(payload: UserPayload, policy: RegExp | null): void {
  if (payload.email !== undefined && payload.email !== null) checkEmail(payload.email);
  if (typeof payload.password === 'string' && payload.password !== '') checkPasswordPolicy(policy, payload.password);
}

/** SPEC.md > Users rule 3: a password set by an admin forces a change at next login unless the request
 * says `require_password_change: false`. The admin's `current_password` (a self-change) lifts it. */
export function adminPasswordRule(payload: UserPayload): UserPayload {
  const { current_password: current, ...rest } = payload;
  if (typeof rest.password === 'string' && rest.password !== '' && rest.require_password_change === undefined) {
    rest.require_password_change = current === undefined;
  }
  return rest;
}

/** Email is unique case-insensitively (login matches it so): 409 RECORD_NOT_UNIQUE, as Directus. `emails`
 * are the values being written (one per row written); `exclude` the rows being updated. */
export async function checkUniqueEmails(db: Executor, emails: string[], exclude: string[]): Promise<void> {
  if (emails.length === 0) return;
  const lower = emails.map((e) => e.toLowerCase());
  if (new Set(lower).size !== lower.length) throw notUnique();
  if (await emailTaken(db, lower, exclude)) throw notUnique();
}

export function emailsOf(payloads: UserPayload[]): string[] {
  return payloads.map((p) => p.email).filter((e): e is string => typeof e === 'string');
}

function notUnique(): RecordNotUniqueError {
  return new RecordNotUniqueError({ collection: 'svc_users', field: 'email' });
}
