/** Cookie names and options of the cookie and session login modes (Directus: directus_refresh_token,
 * directus_session_token). */
import type { Config } from '../config.ts';

export const REFRESH_TOKEN_COOKIE = 'svc_refresh_token';
export const SESSION_TOKEN_COOKIE = 'svc_session_token';

export interface AuthCookieOptions {
  httpOnly: true;
  path: '/';
  sameSite: 'Lax';
  secure: boolean;
  maxAge: number;
}

/** httpOnly, SameSite=Lax (Directus' defaults), Secure when the public URL is https; lives as long as the session. */
export function authCookieOptions(config: Config, ttlMs: number): AuthCookieOptions {
  return { httpOnly: true, path: '/', sameSite: 'Lax', secure: config.publicUrl.startsWith('https:'), maxAge: Math.floor(ttlMs / 1000) };
}
