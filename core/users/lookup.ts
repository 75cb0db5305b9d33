/** Small helpers of the public user flows (invitation, reset, registration). */
import { run, type Executor } from '../db/database.ts';
import { InvalidPayloadError } from '../errors.ts';

export interface UserByEmail { id: string; email: string; status: string; password: string | null; provider: string }

/** Emails match case-insensitively, an exact match first (as login). */
export async function userByEmail(db: Executor, email: string): Promise<UserByEmail | undefined> {
  const [row] = await run<UserByEmail>(db, `select id, email, status, password, provider from svc_users
    where lower(email) = lower($1) order by (email = $1) desc limit 1`, [email]);
  return row;
}

/** A required string field of a body: 400 INVALID_PAYLOAD in Joi's wording, as Directus. */
export function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null || value === '') throw new InvalidPayloadError(`"${field}" is required`);
  if (typeof value !== 'string') throw new InvalidPayloadError(`"${field}" must be a string`);
  return value;
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidPayloadError(`"${field}" must be a string`);
  return value;
}
