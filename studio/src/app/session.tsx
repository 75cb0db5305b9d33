/** Who is signed in, and the three things that change it: sign in (session mode: the server sets an httpOnly
 * cookie), the session refreshed before it expires, and sign out. The current user is read once per sign-in
 * (GET /users/me) and kept in the query cache under ['me'].
 *
 * Opening the Studio: when this browser knows its session token is still good for a while (the expiry of the last
 * sign-in or refresh, kept in localStorage; the cookie itself is out of script reach), GET /users/me goes at once,
 * with the requests every screen needs (`prefetch`) beside it, and the refresh that extends the session runs on the
 * timer before the token runs out, as it does while the Studio stays open. A 401 still refreshes and retries
 * (../api/client.ts). Otherwise (no such note, or the token about to run out) a refresh checks and extends the
 * session first, as before. That is also how a session set by external sign-on (OpenID, OAuth2: the browser comes
 * back from the provider with the session cookie set and no note here) is picked up. */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { onSession, refreshSession, request } from '../api/client.ts';
import { stopLive } from '../api/live.ts';
import { ApiError } from '../api/errors.ts';

export interface Me {
  id: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  avatar: string | null;
  language: string | null;
  appearance: 'auto' | 'light' | 'dark' | null;
  last_page: string | null;
  tfa_enabled: boolean | null;
  require_password_change: boolean | null;
  role: string | null;
}

export const ME_FIELDS = ['id', 'email', 'first_name', 'last_name', 'avatar', 'language', 'appearance', 'last_page', 'tfa_enabled', 'require_password_change', 'role'];

type Status = 'loading' | 'signed-out' | 'signed-in';

export interface LoginAnswer {
  expires: number;
  require_password_change: boolean | null;
  tfa_setup_required?: boolean;
}

interface SessionValue {
  status: Status;
  me: Me | null;
  /** Set when the server asked for a new password at this sign-in (a password set by an admin). */
  mustChangePassword: boolean;
  signIn(input: { email: string; password: string; otp?: string }): Promise<LoginAnswer>;
  /** Sign in through an LDAP provider of GET /auth (POST /auth/login/{provider}); answers as signIn does. */
  signInWithDirectory(provider: string, input: { identifier: string; password: string; otp?: string }): Promise<LoginAnswer>;
  signOut(): Promise<void>;
  reloadMe(): Promise<Me | null>;
  passwordChanged(): void;
}

const SessionContext = createContext<SessionValue | null>(null);

/** Refresh this long before the access token runs out. */
const REFRESH_AHEAD_MS = 60_000;
/** Opening the Studio with less than this left on the token refreshes first. */
const FRESH_ENOUGH_MS = 10_000;
const EXPIRES_KEY = 'studio.session-expires';

/** When the session's access token runs out, as this browser last heard (ms since the epoch), or null. */
function knownExpiry(): number | null {
  try {
    const at = Number(localStorage.getItem(EXPIRES_KEY));
    return Number.isFinite(at) && at > 0 ? at : null;
  } catch {
    return null;
  }
}

function rememberExpiry(at: number | null): void {
  try {
    if (at === null) localStorage.removeItem(EXPIRES_KEY);
    else localStorage.setItem(EXPIRES_KEY, String(at));
  } catch {
    // Storage refused (private mode): every load refreshes first.
  }
}

/** Requests to send with the session's own, in the same moment: `opening` as the Studio opens (before the session is
 * known), `signedIn` with GET /users/me once a session is (opening with one, or signing in). */
export interface SessionPrefetch {
  opening(queryClient: QueryClient): void;
  signedIn(queryClient: QueryClient): void;
}

export function SessionProvider({ children, prefetch }: { children: ReactNode; prefetch?: SessionPrefetch }) {
  const queryClient = useQueryClient();
  // Read while rendering, so that no storage access stands between the first requests.
  const [openedWith] = useState(knownExpiry);
  const [status, setStatus] = useState<Status>('loading');
  const [me, setMe] = useState<Me | null>(null);
  const [mustChangePassword, setMustChangePassword] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const schedule = useCallback((expiresMs: number) => {
    rememberExpiry(Date.now() + expiresMs);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => { void refreshSession(); }, Math.max(5_000, expiresMs - REFRESH_AHEAD_MS));
  }, []);

  const signedOut = useCallback(() => {
    clearTimeout(timer.current);
    rememberExpiry(null);
    // The realtime socket spoke for this session: it ends with it.
    stopLive();
    queryClient.clear();
    setMe(null);
    setStatus('signed-out');
  }, [queryClient]);

  const reloadMe = useCallback(async (): Promise<Me | null> => {
    try {
      const user = await request<Me>('GET', '/users/me', { query: { fields: ME_FIELDS } });
      setMe(user);
      setStatus('signed-in');
      queryClient.setQueryData(['me'], user);
      return user;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
        signedOut();
        return null;
      }
      throw err;
    }
  }, [queryClient, signedOut]);

  useEffect(() => {
    onSession({ signedOut, refreshed: schedule });
    const left = openedWith === null ? 0 : openedWith - Date.now();
    if (left > FRESH_ENOUGH_MS) {
      // All in one go, the longest answers first: a quick answer back before the last request leaves would put
      // that request a round trip later.
      prefetch?.signedIn(queryClient);
      const user = reloadMe();
      prefetch?.opening(queryClient);
      schedule(left);
      void user.catch(() => setStatus('signed-out'));
    } else {
      // No live session known here: a refresh both checks the cookie and extends the session.
      prefetch?.opening(queryClient);
      void (async () => {
        if (!(await refreshSession())) {
          setStatus('signed-out');
          return;
        }
        prefetch?.signedIn(queryClient);
        await reloadMe().catch(() => setStatus('signed-out'));
      })();
    }
    return () => clearTimeout(timer.current);
  }, [reloadMe, schedule, signedOut, prefetch, queryClient, openedWith]);

  // Password and directory (LDAP) sign-in answer alike in session mode: one path from the answer to the user.
  const login = useCallback(async (path: string, input: Record<string, string | undefined>) => {
    const answer = await request<LoginAnswer>('POST', path, { body: { ...input, mode: 'session' } });
    schedule(answer.expires);
    setMustChangePassword(Boolean(answer.require_password_change));
    // A limited sign-in (a new password or two-factor set-up comes first) reads the rest when a screen needs it.
    if (!answer.require_password_change && !answer.tfa_setup_required) prefetch?.signedIn(queryClient);
    await reloadMe();
    return answer;
  }, [reloadMe, schedule, prefetch, queryClient]);

  const signIn = useCallback((input: { email: string; password: string; otp?: string }) => login('/auth/login', input), [login]);
  const signInWithDirectory = useCallback((provider: string, input: { identifier: string; password: string; otp?: string }) =>
    login(`/auth/login/${encodeURIComponent(provider)}`, input), [login]);

  const signOut = useCallback(async () => {
    try {
      await request('POST', '/auth/logout', { body: { mode: 'session' } });
    } finally {
      signedOut();
    }
  }, [signedOut]);

  const value = useMemo<SessionValue>(() => ({
    status, me, mustChangePassword, signIn, signInWithDirectory, signOut, reloadMe, passwordChanged: () => setMustChangePassword(false),
  }), [status, me, mustChangePassword, signIn, signInWithDirectory, signOut, reloadMe]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
