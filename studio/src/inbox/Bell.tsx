/** The in-app notification bell in the module bar, for every signed-in user: the number of their notifications in
 * the inbox (svc_notifications, a count-only request, read again whenever the panel opens), and the panel listing
 * them (./BellPanel.tsx, loaded when first wanted: this file is part of the first load). The count (and the open
 * panel) follows the user's notifications live: a realtime subscription to svc_notifications for this recipient,
 * any change reads them again. The count is still read every minute, as before realtime: that is all there is where
 * realtime is not (switched off, a deployment without it), and it catches notifications written without an item
 * event (the notification module's in-app channel writes its rows directly). */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { request } from '../api/client.ts';
import { useLive } from '../api/live.ts';
import { preloadable } from '../app/lazy.ts';

/** The signed-in user's own notifications (an admin may read everyone's: the recipient is always named). */
export const OWN = { recipient: { _eq: '$CURRENT_USER' } };

/** The subscription behind the live count: every change to the user's own notifications. */
const LIVE_SPEC = { collection: 'svc_notifications', query: { fields: ['id', 'status'], filter: OWN } };

const BellPanel = preloadable<{ onClose(): void; unread: number }>(() => import('./BellPanel.tsx'), null);

export function Bell() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const qc = useQueryClient();
  useLive(LIVE_SPEC, () => void qc.invalidateQueries({ queryKey: ['notifications'] }));
  const count = useQuery({
    queryKey: ['notifications', 'count'],
    refetchInterval: 60_000,
    queryFn: ({ signal }) => request<{ count: number | string }[]>('GET', '/notifications', {
      query: { aggregate: { count: '*' }, filter: { _and: [OWN, { status: { _eq: 'inbox' } }] } }, signal,
    }).then((rows) => Number(rows[0]?.count ?? 0)),
  });
  const unread = count.data ?? 0;
  const close = (): void => {
    setOpen(false);
    button.current?.focus();
  };
  const toggle = (): void => {
    if (open) return close();
    void qc.invalidateQueries({ queryKey: ['notifications'] });
    setOpen(true);
  };
  return (
    <>
      <button ref={button} type="button" className={open ? 'module active' : 'module'} onClick={toggle} aria-expanded={open} aria-controls={open ? 'bell-panel' : undefined}
        onPointerEnter={() => void BellPanel.preload()} onFocus={() => void BellPanel.preload()} title="Notifications">
        <svg className="module-icon" width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
          <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" /><path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
        </svg>
        <span className="module-label">Notifications</span>
        {unread > 0 && (
          <span className="badge count-badge"><span aria-hidden="true">{unread > 99 ? '99+' : unread}</span><span className="visually-hidden">, {unread} unread</span></span>
        )}
      </button>
      {open && <BellPanel onClose={close} unread={unread} />}
    </>
  );
}
