/** Screens' way to realtime: `useLive` subscribes while mounted and calls back, debounced, when the subscribed rows
 * changed (or the server says events were missed). The client itself (./realtime.ts) is loaded on the first subscription, not with the
 * Studio's first load. Without realtime (the endpoint is off or absent) nothing happens here and the screens work
 * as they did before it: no error is shown. */
import { useEffect, useRef } from 'react';
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
  /** Changes closer together than this make one call... */
  debounceMs?: number;
  /** ...but a steady stream of them (an import) still calls at least this often. */
  maxWaitMs?: number;
}

/** What changed since the last call: the keys of deleted rows (as strings; the rest is read again anyway). */
export interface LiveChange {
  deleted: string[];
}

/** Calls `onChange` after rows of the subscription were created, updated or deleted (by anyone, this tab included),
 * and after a resync; not for the first rows the server sends. Re-subscribes when the spec changes (compared as
 * JSON). A subscription the server refuses (no read access, say) just ends: the screen keeps its polling. */
export function useLive(spec: SubscriptionSpec | null, onChange: (change: LiveChange) => void, opts: LiveOptions = {}): void {
  const { enabled = true, debounceMs = 250, maxWaitMs = 2_000 } = opts;
  const callback = useRef(onChange);
  callback.current = onChange;
  const key = spec && enabled ? JSON.stringify(spec) : null;

  useEffect(() => {
    if (key === null) return undefined;
    const wanted = JSON.parse(key) as SubscriptionSpec;
    let stopped = false;
    let unsubscribe: (() => void) | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let initSeen = false;
    let deleted: string[] = [];
    let since: number | null = null;
    const flush = (): void => {
      const change = { deleted };
      deleted = [];
      since = null;
      if (!stopped) callback.current(change);
    };
    const changed = (keys: unknown[] = []): void => {
      for (const k of keys) if (typeof k === 'string' || typeof k === 'number') deleted.push(String(k));
      since ??= Date.now();
      clearTimeout(timer);
      timer = setTimeout(flush, Math.max(0, Math.min(debounceMs, since + maxWaitMs - Date.now())));
    };
    void client().then((c) => {
      if (!c || stopped) return;
      unsubscribe = c.subscribe(wanted, (message) => {
        if (stopped) return;
        switch (message.event) {
          case 'init':
            // A second init follows a resync (already acted on) or a resubscribe without a resume point: the
            // rows may have changed meanwhile.
            if (initSeen) changed();
            initSeen = true;
            return;
          case 'error':
            return;
          case 'resync':
            changed();
            return;
          case 'delete':
            changed(message.data);
            return;
          default:
            changed();
        }
      });
    });
    return () => {
      stopped = true;
      clearTimeout(timer);
      unsubscribe?.();
    };
  }, [key, debounceMs]);
}
