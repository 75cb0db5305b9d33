/** One error type per code of SPEC.md > Errors, the error envelope, and the database error mapping. */

export type ErrorCode =
  | 'TOKEN_EXPIRED' | 'TOKEN_REVOKED' | 'INVALID_TOKEN' | 'INVALID_CREDENTIALS' | 'INVALID_OTP'
  | 'USER_SUSPENDED' | 'FORBIDDEN' | 'MISSING_ACCOUNTABILITY' | 'NOT_FOUND' | 'COLLECTION_NOT_FOUND'
  | 'FIELD_NOT_FOUND' | 'RECORD_NOT_UNIQUE' | 'INVALID_PAYLOAD' | 'INVALID_QUERY'
  | 'UNSUPPORTED_MEDIA_TYPE' | 'REQUESTS_EXCEEDED' | 'CONTENT_TOO_LARGE' | 'RANGE_NOT_SATISFIABLE'
  | 'UNPROCESSABLE_CONTENT' | 'CONFLICT' | 'INTERNAL_SERVER_ERROR' | 'SERVICE_UNAVAILABLE';

export type ErrorExtensions = { code: ErrorCode; reason?: string } & Record<string, unknown>;

export class ServiceError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly extensions: Record<string, unknown>;
  /** Raw database text; only sent at LOG_LEVEL debug/trace as extensions.reason. */
  readonly reason?: string;

  constructor(status: number, code: ErrorCode, message: string, extensions: Record<string, unknown> = {}, reason?: string) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.extensions = extensions;
    this.reason = reason;
  }
}

export class TokenExpiredError extends ServiceError {
  constructor() { super(401, 'TOKEN_EXPIRED', 'Token expired.'); }
}
export class TokenRevokedError extends ServiceError {
  constructor() { super(401, 'TOKEN_REVOKED', 'Token revoked.'); }
}
export class InvalidTokenError extends ServiceError {
  constructor(message = 'Invalid token.') { super(401, 'INVALID_TOKEN', message); }
}
export class InvalidCredentialsError extends ServiceError {
  constructor(message = 'Invalid user credentials.') { super(401, 'INVALID_CREDENTIALS', message); }
}
export class InvalidOtpError extends ServiceError {
  constructor(message = 'Invalid user OTP.') { super(401, 'INVALID_OTP', message); }
}
export class UserSuspendedError extends ServiceError {
  constructor(message = 'User suspended.') { super(403, 'USER_SUSPENDED', message); }
}
export class ForbiddenError extends ServiceError {
  constructor(message = "You don't have permission to access this.") { super(403, 'FORBIDDEN', message); }
}
export class MissingAccountabilityError extends ServiceError {
  constructor() { super(403, 'MISSING_ACCOUNTABILITY', 'This request requires authentication.'); }
}
export class NotFoundError extends ServiceError {
  constructor(message = 'Resource not found.') { super(404, 'NOT_FOUND', message); }
}
export class RouteNotFoundError extends ServiceError {
  constructor(path: string) { super(404, 'NOT_FOUND', `Route ${path} doesn't exist.`); }
}
export class CollectionNotFoundError extends ServiceError {
  constructor(collection: string) {
    super(404, 'COLLECTION_NOT_FOUND', `Collection "${collection}" doesn't exist.`, { collection });
  }
}
export class FieldNotFoundError extends ServiceError {
  constructor(collection: string, field: string) {
    super(404, 'FIELD_NOT_FOUND', `Field "${field}" in collection "${collection}" doesn't exist.`, { collection, field });
  }
}
export class RecordNotUniqueError extends ServiceError {
  constructor(extensions: Record<string, unknown> = {}, reason?: string) {
    super(409, 'RECORD_NOT_UNIQUE', 'Value has to be unique', extensions, reason);
  }
}
export class InvalidPayloadError extends ServiceError {
  constructor(message: string, extensions: Record<string, unknown> = {}, reason?: string) {
    super(400, 'INVALID_PAYLOAD', message, extensions, reason);
  }
}
export class InvalidQueryError extends ServiceError {
  constructor(message: string, extensions: Record<string, unknown> = {}, reason?: string) {
    super(400, 'INVALID_QUERY', message, extensions, reason);
  }
}
export class UnsupportedMediaTypeError extends ServiceError {
  constructor(message = 'Unsupported media type.') { super(400, 'UNSUPPORTED_MEDIA_TYPE', message); }
}
export class RequestsExceededError extends ServiceError {
  constructor(limit: number, reset: string) { super(429, 'REQUESTS_EXCEEDED', 'Hit rate limit', { limit, reset }); }
}
export class ContentTooLargeError extends ServiceError {
  constructor(message = 'Payload too large.') { super(413, 'CONTENT_TOO_LARGE', message); }
}
export class RangeNotSatisfiableError extends ServiceError {
  constructor() { super(416, 'RANGE_NOT_SATISFIABLE', 'Range not satisfiable.'); }
}
export class UnprocessableContentError extends ServiceError {
  constructor(message: string) { super(422, 'UNPROCESSABLE_CONTENT', message); }
}
/** The state a request was made against has changed since (a schema diff applied after another change). */
export class ConflictError extends ServiceError {
  constructor(message: string) { super(409, 'CONFLICT', message); }
}
export class InternalServerError extends ServiceError {
  constructor(message = 'An unexpected error occurred.') { super(500, 'INTERNAL_SERVER_ERROR', message); }
}
export class ServiceUnavailableError extends ServiceError {
  constructor(message = 'Service unavailable.', reason?: string) { super(503, 'SERVICE_UNAVAILABLE', message, {}, reason); }
}

/** Several errors may be raised together (e.g. validation of many fields). */
export class ErrorList extends Error {
  constructor(readonly errors: ServiceError[]) { super(errors.map((e) => e.message).join('; ')); }
}

interface PgLikeError { code?: unknown; message?: unknown; detail?: unknown; column?: unknown; constraint?: unknown; table?: unknown }

function isPgError(err: unknown): err is PgLikeError & Error {
  return typeof err === 'object' && err !== null && typeof (err as PgLikeError).code === 'string'
    && /^[0-9A-Z]{5}$/.test((err as PgLikeError).code as string);
}

function fieldOf(err: PgLikeError): string | undefined {
  if (typeof err.column === 'string') return err.column;
  const detail = typeof err.detail === 'string' ? err.detail : '';
  const m = /^Key \(([^)]+)\)/.exec(detail);
  return m ? m[1].replace(/"/g, '') : undefined;
}

/** A statement over its time budget (DB_STATEMENT_TIMEOUT, or DB_LONG_STATEMENT_TIMEOUT for long administrative work). */
export const STATEMENT_BUDGET_MESSAGE = 'The request took too long in the database and was cancelled; nothing was changed. '
  + 'Try again later, or ask for less (a narrower filter, fewer rows or fields).';

/** A transaction the service held open without using it longer than DB_IDLE_IN_TRANSACTION_TIMEOUT: the server
 * ended its session and rolled it back. */
export function idleTransactionEndedError(reason: string): ServiceUnavailableError {
  return new ServiceUnavailableError('The request kept a database transaction waiting too long, so the database ended it; '
    + 'nothing was changed. Try again later.', reason);
}

/** Translates a Postgres error into a ServiceError; anything else is returned unchanged. */
export function mapDatabaseError(err: unknown): unknown {
  if (!isPgError(err)) return err;
  const reason = String(err.message) + (err.detail ? ` (${String(err.detail)})` : '');
  const field = fieldOf(err);
  const ext: Record<string, unknown> = {};
  if (typeof err.table === 'string') ext.collection = err.table;
  if (field) ext.field = field;
  switch (err.code) {
    case '23505': return new RecordNotUniqueError(ext, reason);
    case '23502': return new InvalidPayloadError(field ? `Value for field "${field}" can't be null.` : "Value can't be null.", ext, reason);
    case '23503': return new InvalidPayloadError(field ? `Invalid foreign key for field "${field}".` : 'Invalid foreign key.', ext, reason);
    case '23514': return new InvalidPayloadError('Value does not pass the check constraint.', ext, reason);
    case '22P02': case '22007': case '22008': case '22003': case '22001': case '22023': case '2201W': case '2201X':
    case '22021': case '22004': case '22012': case '42804':
      return new InvalidPayloadError(err.code === '22001' ? 'Value is too long.' : err.code === '22003' ? 'Value is out of range.' : 'Invalid value.', ext, reason);
    // Only a `_regex` filter (or a permission rule using one) can make Postgres compile a user's pattern.
    case '2201B': return new InvalidQueryError('Invalid regular expression in a "_regex" filter.', ext, reason);
    // query_canceled: over the statement budget (DB_STATEMENT_TIMEOUT, core/db/statement-budget.ts) or cancelled by an
    // operator. 503 rather than 400: the time includes waiting for locks and a busy server, and a write with no query
    // parameter can meet it as well; the same request may pass later (Retry-After is added with every 503).
    // The transaction it ran in is rolled back, so nothing of the request is kept.
    case '57014': return new ServiceUnavailableError(/statement timeout/.test(reason)
      ? STATEMENT_BUDGET_MESSAGE : 'The database cancelled the request; nothing was changed. Try again.', reason);
    default: return err;
  }
}

export interface ErrorBody { errors: { message: string; extensions: Record<string, unknown> }[] }

/** Builds the `{errors:[...]}` envelope and the response status (500 when statuses differ). */
export function toErrorResponse(errors: ServiceError[], exposeReason: boolean): { status: number; body: ErrorBody } {
  const statuses = new Set(errors.map((e) => e.status));
  const status = statuses.size === 1 ? errors[0].status : 500;
  return {
    status,
    body: {
      errors: errors.map((e) => ({
        message: e.message,
        extensions: { code: e.code, ...e.extensions, ...(exposeReason && e.reason ? { reason: e.reason } : {}) },
      })),
    },
  };
}

/** Normalises anything thrown into ServiceErrors. Unknown errors become INTERNAL_SERVER_ERROR. */
export function normalizeErrors(err: unknown): { errors: ServiceError[]; unexpected: unknown | null } {
  if (err instanceof ErrorList) return { errors: err.errors, unexpected: null };
  const mapped = mapDatabaseError(err);
  if (mapped instanceof ServiceError) return { errors: [mapped], unexpected: null };
  return { errors: [new InternalServerError()], unexpected: err };
}

/** The envelope and status of anything thrown, as every answer gives it (REST, MCP tool errors): an unexpected error
 * is logged and answered as INTERNAL_SERVER_ERROR without its message; at LOG_LEVEL debug or trace the database's
 * message (`reason`) is shown. */
export function errorEnvelope(err: unknown, logLevel: string): { status: number; body: ErrorBody } {
  const { errors, unexpected } = normalizeErrors(err);
  if (unexpected && logLevel !== 'silent') console.error(unexpected);
  const expose = logLevel === 'debug' || logLevel === 'trace';
  const { status, body } = toErrorResponse(errors, expose);
  if (unexpected && expose && unexpected instanceof Error) body.errors[0].extensions.reason = unexpected.message;
  return { status, body };
}
