/** Security events (SPEC.md > Events 4): a tiny in-process emitter. Subscribers (audit sinks, tests) get every
 * event synchronously; each event is also logged at warn level unless LOG_LEVEL is above warn. */
import type { LogLevel } from '../config.ts';

export interface RateLimitTriggeredEvent {
  type: 'RATE_LIMIT_TRIGGERED';
  severity: 'warning';
  details: {
    limiter: 'global' | 'ip' | 'assets' | 'service' | 'per-user' | 'endpoint' | 'email';
    key: string;
    ip: string | null;
  };
}

export type SecurityEvent = RateLimitTriggeredEvent;
export type SecurityListener = (event: SecurityEvent) => void;

const listeners = new Set<SecurityListener>();

/** Returns the unsubscribe function. */
export function onSecurityEvent(listener: SecurityListener): () => void {
  listeners.add(listener);
  return () => { listeners.delete(listener); };
}

const QUIET: ReadonlySet<LogLevel> = new Set(['silent', 'fatal', 'error']);

export function emitSecurityEvent(event: SecurityEvent, logLevel: LogLevel = 'info'): void {
  for (const listener of listeners) {
    try {
      listener(event);
    } catch (err) {
      // A faulty subscriber must not turn the request that triggered the event into a 500.
      if (logLevel !== 'silent') console.error(err);
    }
  }
  if (!QUIET.has(logLevel)) {
    console.warn(JSON.stringify({ level: 'warn', time: new Date().toISOString(), msg: 'security event', event: event.type, severity: event.severity, ...event.details }));
  }
}
