/** The realtime side of a process (container half and standalone): one hub per Services, created by the first
 * WebSocket or SSE subscriber, with the connections of both kinds, their heartbeat, and the watch that checks every
 * connection's credential again when access rules change (the schema version, which permission, role, policy and
 * user changes bump) or a session ends (a logout anywhere: core/auth/revoked.ts). */
import { logoutCount } from '../../core/auth/revoked.ts';
import { RealtimeHub } from '../../core/realtime/hub.ts';
import type { Services } from '../../core/services.ts';

/** How often the access version and the logout counter are read (one store read each). */
const WATCH_MS = 1000;

/** A WebSocket or an SSE stream. */
export interface Connection {
  /** Checks the held credential again; `sessionsOnly`: only one whose validity rests on a session. */
  recheck(sessionsOnly: boolean): Promise<void>;
  /** The heartbeat: a ping, or the close of a silent connection. */
  beat(now: number): void;
  close(code: number, reason: string): void;
}

export interface Realtime {
  hub: RealtimeHub;
  connections: Set<Connection>;
  /** Closes every connection (clients reconnect elsewhere) and stops the timers. */
  close(): void;
}

const instances = new WeakMap<Services, Realtime>();

export function realtime(services: Services): Realtime {
  let rt = instances.get(services);
  if (rt) return rt;
  const config = services.config.realtime;
  const hub = new RealtimeHub(services, services.changes, { maxSubscriptions: config.maxSubscriptions });
  hub.start();
  const connections = new Set<Connection>();

  const heartbeat = setInterval(() => {
    const now = Date.now();
    for (const conn of connections) conn.beat(now);
  }, config.heartbeatMs);
  heartbeat.unref();

  let version: string | null = null;
  let logouts: string | null = null;
  let watching = false;
  const check = () => {
    if (watching) return;
    watching = true;
    void (async () => {
      const [schema, count] = await Promise.all([services.schema.get(), logoutCount(services.store)]);
      const rulesChanged = version !== null && schema.version !== version;
      const sessionsChanged = logouts !== null && count !== logouts;
      version = schema.version;
      logouts = count;
      if (rulesChanged || sessionsChanged) {
        await Promise.all([...connections].map((conn) => conn.recheck(!rulesChanged)));
      }
    })().catch((err: unknown) => {
      console.error('realtime: checking credentials failed:', (err as Error).message);
    }).finally(() => { watching = false; });
  };
  // The baseline is read now, not a period later: a change made in between would otherwise become the baseline
  // and never be noticed (a permission removed in the first second after the first connection stayed in force).
  check();
  const watch = setInterval(check, WATCH_MS);
  watch.unref();

  rt = {
    hub,
    connections,
    close() {
      clearInterval(heartbeat);
      clearInterval(watch);
      for (const conn of [...connections]) conn.close(1001, 'Server shutting down');
    },
  };
  instances.set(services, rt);
  return rt;
}
