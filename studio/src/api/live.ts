/** Screens' way to realtime: `useLive` subscribes while mounted and calls back, debounced, when the subscribed rows
 * changed (or the server says events were missed); `live` tells whether the socket is up, so a screen can keep its
 * polling while it is not. The client itself (./realtime.ts) is loaded on the first subscription, not with the
 * Studio's first load. Without realtime (the endpoint is off or absent) nothing happens here and the screens work
 * as they did before it: no error is shown. */
import { useEffect, useRef, useState } from 'react';
import type { RealtimeClient, SubscriptionSpec } from './realtime.ts';

let loading: Promise<RealtimeClient | null> | null = null;

function client(): Promise<RealtimeClient | null> {
  loading ??= import('./realtime.ts').then((m) => m.realtime(), () => {
    // The chunk could not be loaded (offline, a deploy replaced it): no realtime in this tab; try again later.
    loading = null;
    return null;
  });
  return loading;
}

/** Ends realtime for this tab (sign-out), when it was ever started. */
export function stopLive(): void {
  if (loading) void loading.then((c) => c?.reset());
}

export interface LiveOptions {
  /** Subscribe only when true (the user is signed in, may read the collection ...). */
  enabled?: boolean;
  /** Changes closer together than this make one call. */
  debounceMs?: number;
}

/** What changed since the last call: the keys of deleted rows (as strings), and whether the whole subscription
 * has to be read again (a resync or a fresh init: individual changes were missed). */
export interface LiveChange {
  deleted: string[];
  reload: boolean;
}

/** Calls `onChange` after rows of the subscription were created, updated or deleted (by anyone, this tab included),
 * and after a resync; not for the first rows the server sends. Re-subscribes when the spec changes (compared as
 * JSON). Answers whether the subscription is live. */
export function useLive(spec: SubscriptionSpec | null, onChange: (change: LiveChange) => void, opts: LiveOptions = {}): boolean {
  const { enabled = true, debounceMs = 250 } = opts;
  const callback = useRef(onChange);
  callback.current = onChange;
  const [live, setLive] = useState(false);
  const key = spec && enabled ? JSON.stringify(spec) : null;

  useEffect(() => {
    if (key === null) return undefined;
    const wanted = JSON.parse(key) as SubscriptionSpec;
    let stopped = false;
    let unsubscribe: (() => void) | null = null;
    let offStatus: (() => void) | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let initSeen = false;
    let subscribed = false;
    let pending: LiveChange = { deleted: [], reload: false };
    const changed = (deleted: unknown[] = [], reload = false): void => {
      pending = { deleted: [...pending.deleted, ...deleted.filter((k) => typeof k === 'string' || typeof k === 'number').map(String)], reload: pending.reload || reload };
      clearTimeout(timer);
      timer = setTimeout(() => {
        const change = pending;
        pending = { deleted: [], reload: false };
        if (!stopped) callback.current(change);
      }, debounceMs);
    };
    void client().then((c) => {
      if (!c || stopped) return;
      const update = (): void => setLive(subscribed && c.getStatus() === 'live');
      offStatus = c.onStatus(update);
      unsubscribe = c.subscribe(wanted, (message) => {
        if (stopped) return;
        switch (message.event) {
          case 'init':
            subscribed = true;
            update();
            // A second init follows a resync (already acted on) or a resubscribe without a resume point: the
            // rows may have changed meanwhile.
            if (initSeen) changed([], true);
            initSeen = true;
            return;
          case 'error':
            subscribed = false;
            update();
            return;
          case 'resync':
            changed([], true);
            return;
          case 'delete':
            subscribed = true;
            update();
            changed(message.data);
            return;
          default:
            subscribed = true;
            update();
            changed();
        }
      });
    });
    return () => {
      stopped = true;
      clearTimeout(timer);
      offStatus?.();
      unsubscribe?.();
      setLive(false);
    };
  }, [key, debounceMs]);

  return live;
}
