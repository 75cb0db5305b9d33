/** Refresh/session tokens: a random 64-character token per login, stored in svc_sessions. */
import { createHash, randomBytes } from 'node:crypto';
import { run, type Executor } from '../db/database.ts';
import { TFA_ENFORCED_SQL, TFA_MISSING_SQL } from './tfa-setup.ts';

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

/** How long a rotated refresh token keeps answering with its successor (Directus' grace period), so
 * concurrent refreshes from several tabs of one client do not log each other out. */
export const ROTATION_GRACE_MS = 10_000;

/** A session row with what refreshing it needs: its user's role and status, or its share's scope. */
export interface SessionRecord {
  token: string;
  user: string | null;
  share: string | null;
  live: boolean;
  next_token: string | null;
  expires: Date;
  user_role: string | null;
  user_status: string | null;
  share_role: string | null;
  share_collection: string | null;
  share_item: string | null;
  /** The user must set up two-factor first (core/auth/tfa-setup.ts). */
  tfa_setup_required: boolean | null;
}

export async function findSession(ex: Executor, token: string): Promise<SessionRecord | null> {
  const [row] = await run<SessionRecord>(ex, `
    select s.token, s."user", s.share, s.expires >= now() as live, s.next_token, s.expires,
      u.role as user_role, u.status as user_status, sh.role as share_role, sh.collection as share_collection, sh.item as share_item,
      u.id is not null and ${TFA_MISSING_SQL} and ${TFA_ENFORCED_SQL} as tfa_setup_required
    from svc_sessions s left join svc_users u on u.id = s."user" left join svc_roles r on r.id = u.role
      left join svc_shares sh on sh.id = s.share
    where s.token = $1`, [token]);
  return row ?? null;
}

/** Replaces a session by a new one (same user or share, fresh expiry) and keeps the old row for the grace
 * period pointing at its successor. Returns the successor, or null when the session is gone or expired.
 * Concurrent rotations of one token serialise on the row lock and all get the same successor. */
export async function rotateSession(trx: Executor, token: string, meta: Omit<NewSession, 'user'>): Promise<string | null> {
  const [row] = await run<{ user: string | null; share: string | null; next_token: string | null; live: boolean }>(trx,
    'select "user", share, next_token, expires >= now() as live from svc_sessions where token = $1 for update', [token]);
  if (!row || !row.live) return null;
  if (row.next_token) return row.next_token;
  const next = generateSessionToken();
  await run(trx, 'update svc_sessions set next_token = $2, expires = least(expires, $3) where token = $1',
    [token, next, new Date(Date.now() + ROTATION_GRACE_MS)]);
  await run(trx, `insert into svc_sessions (token, "user", share, expires, ip, user_agent, origin)
    values ($1, $2, $3, $4, $5, $6, $7)`,
  [next, row.user, row.share, new Date(Date.now() + meta.ttlMs), clip(meta.ip, 255), meta.userAgent, clip(meta.origin, 255)]);
  return next;
}

/** A short one-way reference to a session token, carried by access tokens as `sid`: names the session an
 * access token was issued with without putting the refresh token itself into it. */
export function sessionRef(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}

/** Whether the user still has the session an access token names by reference (sessionRef): a revocation
 * (core/auth/user-revocation.ts) or a logout deletes it. Expired rows still count: an access token may outlive its
 * refresh token, and cleanup removing such a row only makes the client sign in again. */
export async function sessionRefExists(ex: Executor, user: string, ref: string): Promise<boolean> {
  const rows = await run<{ token: string }>(ex, 'select token from svc_sessions where "user" = $1', [user]);
  return rows.some((row) => sessionRef(row.token) === ref);
}

/** Deletes a session with every token of its rotation chain (its predecessors still in their grace period
 * and its successors), so none of them can be refreshed after a logout. Returns the deleted rows. */
export async function deleteSessionFamily(ex: Executor, token: string): Promise<{ token: string; user: string | null; share: string | null; expires: Date }[]> {
  // Waits for a rotation of the token under way (it holds this row lock), so its new successor is seen below.
  await run(ex, 'select 1 from svc_sessions where token = $1 for update', [token]);
  return run(ex, `
    with recursive later(token, next_token) as (
      select token, next_token from svc_sessions where token = $1
      union select s.token, s.next_token from svc_sessions s join later l on s.token = l.next_token
    ), earlier(token) as (
      select token from svc_sessions where token = $1
      union select s.token from svc_sessions s join earlier e on s.next_token = e.token
    )
    delete from svc_sessions where token in (select token from later union select token from earlier)
    returning token, "user", share, expires`, [token]);
}

/** Deletes every session of the users except the one `keep` refers to (sessionRef) and its successors (a
 * client that refreshed while the request was under way); returns the deleted rows. */
export async function deleteUserSessions(ex: Executor, users: readonly string[], keep: string | null): Promise<{ token: string; expires: Date }[]> {
  if (users.length === 0) return [];
  const rows = await run<{ token: string; next_token: string | null; expires: Date }>(ex,
    'select token, next_token, expires from svc_sessions where "user" = any($1::uuid[]) for update', [users]);
  const kept = new Set<string>();
  const byToken = new Map(rows.map((r) => [r.token, r]));
  for (let row = keep === null ? undefined : rows.find((r) => sessionRef(r.token) === keep); row && !kept.has(row.token);
    row = row.next_token ? byToken.get(row.next_token) : undefined) kept.add(row.token);
  const doomed = rows.filter((r) => !kept.has(r.token));
  if (doomed.length > 0) await run(ex, 'delete from svc_sessions where token = any($1::text[])', [doomed.map((r) => r.token)]);
  return doomed.map(({ token, expires }) => ({ token, expires }));
}

/** Deletes a session; returns its user/share and expiry, or null when there was none. */
export async function deleteSession(ex: Executor, token: string): Promise<{ user: string | null; share: string | null; expires: Date } | null> {
  const [row] = await run<{ user: string | null; share: string | null; expires: Date }>(ex,
    'delete from svc_sessions where token = $1 returning "user", share, expires', [token]);
  return row ?? null;
}

/** The live session behind a refresh token presented as a Bearer credential, with its share's scope. */
export async function liveSession(ex: Executor, token: string): Promise<LiveSession | null> {
  const [row] = await run<LiveSession>(ex, `
    select s."user", s.share, sh.role as share_role, sh.collection as share_collection, sh.item as share_item
    from svc_sessions s left join svc_shares sh on sh.id = s.share
    where s.token = $1 and s.expires >= now()`, [token]);
  return row ?? null;
}

export interface LiveSession {
  user: string | null;
  share: string | null;
  share_role: string | null;
  share_collection: string | null;
  share_item: string | null;
}

/** True while a share's session exists and has not expired (share tokens of login mode `session`). */
export async function shareSessionIsLive(ex: Executor, token: string, share: string): Promise<boolean> {
  const rows = await run(ex, 'select 1 from svc_sessions where token = $1 and share = $2 and expires >= now()', [token, share]);
  return rows.length > 0;
}
