/** Errors that mean the database connection (not the statement) failed: the server terminated the backend
 * (restart, failover, a proxy recycling connections), refused or dropped the socket, or the pool could not
 * hand out a connection in time. The request that met one answers 503 SERVICE_UNAVAILABLE; the pool drops
 * the broken client and the next request connects afresh. */
import { ServiceUnavailableError } from '../errors.ts';

/** SQLSTATE classes 08 (connection exception) and 57P (operator intervention), and too_many_connections. */
const SQLSTATE = /^(08...|57P0[1-4]|53300)$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** pg's own messages for a client whose socket ended or never came up. */
const PG_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection ended unexpectedly)/;

export function isConnectionLoss(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (SQLSTATE.test(code) || SOCKET_CODES.has(code))) return true;
  return typeof message === 'string' && PG_MESSAGES.test(message);
}

/** The 503 a request answers when its connection was lost; the driver's text goes to `reason` only. */
export function connectionLostError(err: unknown): ServiceUnavailableError {
  const reason = err instanceof Error ? err.message : String(err);
  return new ServiceUnavailableError('Database unavailable, try again.', reason);
}
