/** An object store that cannot be reached (connection refused or cut, no answer in time, a 5xx from the server)
 * is the service being unavailable: 503 SERVICE_UNAVAILABLE, which the HTTP layer sends with Retry-After, rather
 * than a 500. Errors of the request itself (a missing object, a refused type, a size over the limit, a source
 * stream that failed) are left as they are. Used by the objectstore driver and the tus S3 store. */
import { ServiceError, ServiceUnavailableError } from '../errors.ts';

/** How long the S3 client waits for a TCP connection. */
export const OBJECTSTORE_CONNECT_TIMEOUT_MS = 3_000;
/** How long a call without a request body (read, stat, delete, list) waits for the answer's headers. */
export const OBJECTSTORE_ANSWER_TIMEOUT_MS = 10_000;
/** How long a call carrying bytes (a part of 5 MB, or of TUS_CHUNK_SIZE) may take at least to be sent and answered;
 * larger parts get the time they take at SLOWEST_TRANSFER_BYTES_PER_S. */
export const OBJECTSTORE_TRANSFER_TIMEOUT_MS = 60_000;
const SLOWEST_TRANSFER_BYTES_PER_S = 256 * 1024;
/** One retry: the SDK's default of three attempts would multiply the time an unreachable store holds a request. */
export const OBJECTSTORE_MAX_ATTEMPTS = 2;

/** The S3 client's request handler settings for parts of `partSize` bytes. */
export function objectstoreRequestHandler(partSize: number): { connectionTimeout: number; requestTimeout: number; throwOnRequestTimeout: true } {
  return {
    connectionTimeout: OBJECTSTORE_CONNECT_TIMEOUT_MS,
    requestTimeout: Math.max(OBJECTSTORE_TRANSFER_TIMEOUT_MS, Math.ceil(partSize / SLOWEST_TRANSFER_BYTES_PER_S) * 1000),
    throwOnRequestTimeout: true,
  };
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'EHOSTUNREACH', 'EHOSTDOWN',
  'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN',
]);
const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

interface SdkLikeError { name?: unknown; code?: unknown; errors?: unknown; cause?: unknown; $metadata?: { httpStatusCode?: number } }

/** Whether `err` says the object store could not be reached or failed on its side. */
export function isObjectstoreUnreachable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || err instanceof ServiceError || depth > 3) return false;
  const e = err as SdkLikeError;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  if (typeof e.name === 'string' && TIMEOUT_NAMES.has(e.name)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  // Connecting to every address of a host name fails with an AggregateError of the attempts.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isObjectstoreUnreachable(inner, depth + 1))) return true;
  return isObjectstoreUnreachable(e.cause, depth + 1);
}

/** `err` as SERVICE_UNAVAILABLE when it says the store is unreachable; anything else unchanged. `writing`: the
 * call was storing bytes (and, the driver's writes being all or nothing, stored none). */
export function objectstoreUnavailable(err: unknown, bucket: string, writing = false): unknown {
  if (!isObjectstoreUnreachable(err)) return err;
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new ServiceUnavailableError(
    `The object store (bucket "${bucket}") is unavailable${writing ? '; nothing was stored' : ''}. Try again later.`, reason);
}
