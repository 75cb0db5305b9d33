/** The page the user has open is kept in svc_users.last_page (debounced), so the next sign-in opens it again. */
import { useEffect, useRef } from 'react';
import { request } from '../api/client.ts';

export function useLastPage(location: string | null): void {
  const saved = useRef<string | null>(null);
  useEffect(() => {
    if (location === null || location === '/login' || location === saved.current) return;
    const timer = setTimeout(() => {
      saved.current = location;
      void request('PATCH', '/users/me/track/page', { body: { last_page: location } }).catch(() => {});
    }, 1500);
    return () => clearTimeout(timer);
  }, [location]);
}
