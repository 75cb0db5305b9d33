/** The one way the Studio talks to the API: same origin, the session cookie (httpOnly; no token in script reach),
 * JSON in and out, errors as ApiError. A 401 on an expired session is retried once after POST /auth/refresh, and
 * the session is refreshed ahead of its expiry while the Studio is open (./session-timer.ts). */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { ApiError, errorFromResponse } from './errors.ts';

export type Query = Record<string, string | number | boolean | undefined | null | string[] | Record<string, unknown>>;

/** Directus' query string: nested objects (filter, deep) as JSON, arrays comma-joined. */
export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) params.set(key, value.join(','));
    else if (typeof value === 'object') params.set(key, JSON.stringify(value));
    else params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

let refreshing: Promise<boolean> | null = null;
let onSignedOut: () => void = () => {};
let onRefreshed: (expiresMs: number) => void = () => {};

/** The session layer registers what happens when a refresh succeeds or the session is gone. */
export function onSession(handlers: { signedOut: () => void; refreshed: (expiresMs: number) => void }): void {
  onSignedOut = handlers.signedOut;
  onRefreshed = handlers.refreshed;
}

/** One refresh at a time, however many requests found the session expired. */
export function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const res = await fetch('/auth/refresh', {
        method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'session' }),
      });
      if (!res.ok) return false;
      const body = (await res.json()) as { data: { expires: number } };
      onRefreshed(body.data.expires);
      return true;
    } catch {
      return false;
    } finally {
      setTimeout(() => { refreshing = null; }, 0);
    }
  })();
  return refreshing;
}

const NO_REFRESH = new Set(['/auth/login', '/auth/refresh', '/auth/logout', '/auth/password/request', '/auth/password/reset', '/users/invite/accept']);

/** A 401 here is the answer itself (wrong credentials), not an expired session: no refresh, no sign-out. */
function answersForItself(path: string): boolean {
  return NO_REFRESH.has(path) || path.startsWith('/auth/login/');
}

async function send(path: string, init: RequestInit, retried = false): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    throw new ApiError(0, [{ message: 'Cannot reach the server.', code: 'NETWORK' }]);
  }
  if (res.status === 401 && !retried && !answersForItself(path.split('?')[0])) {
    if (await refreshSession()) return send(path, init, true);
    onSignedOut();
  }
  return res;
}

/** A JSON request; resolves to the body's `data` (undefined for 204). */
export async function request<T = unknown>(method: string, path: string, opts: { query?: Query; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const init: RequestInit = { method, signal: opts.signal, headers: {} };
  if (opts.body !== undefined) {
    init.body = JSON.stringify(opts.body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await send(path + queryString(opts.query), init);
  if (!res.ok) throw await errorFromResponse(res);
  if (res.status === 204) return undefined as T;
  const body = (await res.json()) as { data: T };
  return body.data;
}

/** A list request that also wants `meta` (total_count, filter_count). */
export async function requestList<T = Record<string, unknown>>(path: string, query: Query, signal?: AbortSignal): Promise<{ data: T[]; meta: { total_count?: number; filter_count?: number } }> {
  const res = await send(path + queryString(query), { method: 'GET', signal });
  if (!res.ok) throw await errorFromResponse(res);
  return (await res.json()) as { data: T[]; meta: { total_count?: number; filter_count?: number } };
}

/** A multipart or raw upload (the browser sets the content type of a FormData body). */
export async function upload<T = unknown>(method: string, path: string, body: FormData): Promise<T> {
  const res = await send(path, { method, body });
  if (!res.ok) throw await errorFromResponse(res);
  return ((await res.json()) as { data: T }).data;
}

const sessionMiddleware: Middleware = {
  async onResponse({ request: req, response }) {
    if (response.status !== 401 || answersForItself(new URL(req.url).pathname)) return undefined;
    if (await refreshSession()) return fetch(req.url, { method: req.method, headers: req.headers, body: req.bodyUsed ? undefined : await req.clone().text() || undefined, credentials: 'same-origin' });
    onSignedOut();
    return undefined;
  },
};

/** The typed client for the endpoints our OpenAPI document describes (/server/specs/oas; regenerate the types with
 * `npm run studio:api-types`). Collections' item paths are generic there, so item reads use `request`. */
export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });
api.use(sessionMiddleware);
