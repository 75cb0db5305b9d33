/** Who is signed in, and the three things that change it: sign in (session mode: the server sets an httpOnly
 * cookie), the session refreshed before it expires, and sign out. The current user is read once per sign-in
 * (GET /users/me) and kept in the query cache under ['me']. */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { onSession, refreshSession, request } from '../api/client.ts';
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
  signOut(): Promise<void>;
  reloadMe(): Promise<Me | null>;
  passwordChanged(): void;
}

const SessionContext = createContext<SessionValue | null>(null);

/** Refresh this long before the access token runs out. */
const REFRESH_AHEAD_MS = 60_000;

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Status>('loading');
  const [me, setMe] = useState<Me | null>(null);
  const [mustChangePassword, setMustChangePassword] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const schedule = useCallback((expiresMs: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => { void refreshSession(); }, Math.max(5_000, expiresMs - REFRESH_AHEAD_MS));
  }, []);

  const signedOut = useCallback(() => {
    clearTimeout(timer.current);
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
    // A page load finds out whether a session cookie is still good: a refresh both checks and extends it.
    void (async () => {
      if (await refreshSession()) await reloadMe().catch(() => setStatus('signed-out'));
      else setStatus('signed-out');
    })();
    return () => clearTimeout(timer.current);
  }, [reloadMe, schedule, signedOut]);

  const signIn = useCallback(async (input: { email: string; password: string; otp?: string }) => {
    const answer = await request<LoginAnswer>('POST', '/auth/login', { body: { ...input, mode: 'session' } });
    schedule(answer.expires);
    setMustChangePassword(Boolean(answer.require_password_change));
    await reloadMe();
    return answer;
  }, [reloadMe, schedule]);

  const signOut = useCallback(async () => {
    try {
      await request('POST', '/auth/logout', { body: { mode: 'session' } });
    } finally {
      signedOut();
    }
  }, [signedOut]);

  const value = useMemo<SessionValue>(() => ({
    status, me, mustChangePassword, signIn, signOut, reloadMe, passwordChanged: () => setMustChangePassword(false),
  }), [status, me, mustChangePassword, signIn, signOut, reloadMe]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
