/** Refresh/session tokens: a random 64-character token per login, stored in svc_sessions. */
import { randomBytes } from 'node:crypto';
import { run, type Executor } from '../db/database.ts';

/** 48 random bytes as base64url: 64 characters of [A-Za-z0-9_-], like Directus' nanoid(64). */
export function generateSessionToken(): string {
  return randomBytes(48).toString('base64url');
}

export interface NewSession {
  user: string;
  ttlMs: number;
  ip: string | null;
  userAgent: string | null;
  origin: string | null;
}

/** Inserts a session and returns its token; expired sessions of the same user are cleaned up on the way. */
export async function createSession(ex: Executor, s: NewSession): Promise<string> {
  const token = generateSessionToken();
  await run(ex, 'delete from svc_sessions where "user" = $1 and expires < now()', [s.user]);
  await run(ex, `insert into svc_sessions (token, "user", expires, ip, user_agent, origin)
    values ($1, $2, $3, $4, $5, $6)`,
  [token, s.user, new Date(Date.now() + s.ttlMs), clip(s.ip, 255), s.userAgent, clip(s.origin, 255)]);
  return token;
}

/** True while the session exists, belongs to the user and has not expired. */
export async function sessionIsLive(ex: Executor, token: string, user: string): Promise<boolean> {
  const rows = await run(ex, 'select 1 from svc_sessions where token = $1 and "user" = $2 and expires >= now()', [token, user]);
  return rows.length > 0;
}

/** Cuts a client-supplied value to its column width instead of failing the request. */
export function clip(value: string | null, max: number): string | null {
  return value === null ? null : value.slice(0, max);
}
