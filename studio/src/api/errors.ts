/** API errors as people read them. The server answers `{errors: [{message, extensions: {code, field?}}]}`; the
 * Studio shows the message where the action happened, and a field's error on that field. */
export interface ApiErrorItem {
  message: string;
  code: string;
  field?: string;
  /** extensions.reason: why a request was refused (e.g. a version's submit: `empty_delta`). */
  reason?: string;
  /** The error's other extensions as the server sent them (e.g. `problems` of a refused workflow activation). */
  extensions?: Record<string, unknown>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly items: ApiErrorItem[];

  constructor(status: number, items: ApiErrorItem[]) {
    super(items[0]?.message ?? `The server answered ${status}.`);
    this.status = status;
    this.code = items[0]?.code ?? 'UNKNOWN';
    this.items = items;
  }

  /** Errors that name a field, by field. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    // Shown on the field itself, the server's "Invalid payload." preamble says nothing a person needs.
    for (const item of this.items) if (item.field && !(item.field in out)) out[item.field] = item.message.replace(/^Invalid payload\.\s+/, '');
    return out;
  }

  /** The server or the network may answer differently on a second try. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 502 || this.status === 503 || this.status === 504 || this.code === 'SERVICE_UNAVAILABLE';
  }
}

/** The server's wording is written for developers; these codes get a sentence for the people using the Studio. */
const PLAIN: Record<string, string> = {
  INVALID_CREDENTIALS: 'Wrong email or password.',
  INVALID_OTP: 'That one-time code is not right. Codes change every 30 seconds; try the current one.',
  USER_SUSPENDED: 'This account is suspended. Ask an administrator to reactivate it.',
  TOKEN_EXPIRED: 'Your session has ended. Sign in again.',
  REQUESTS_EXCEEDED: 'Too many attempts. Wait a moment and try again.',
  SERVICE_UNAVAILABLE: 'The server is busy or restarting. Try again in a moment.',
  FORBIDDEN: 'You do not have permission to do that.',
};

export function messageOf(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 0) return 'Cannot reach the server. Check your connection and try again.';
    if (err.code === 'INVALID_CREDENTIALS' && /locked/i.test(err.message)) return err.message;
    return PLAIN[err.code] ?? err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

export async function errorFromResponse(res: Response): Promise<ApiError> {
  let items: ApiErrorItem[] = [];
  try {
    const body = (await res.json()) as { errors?: { message?: string; extensions?: { code?: string; field?: string } & Record<string, unknown> }[] };
    items = (body.errors ?? []).map((e) => ({
      message: e.message ?? 'Unknown error',
      code: e.extensions?.code ?? 'UNKNOWN',
      ...(e.extensions?.field ? { field: e.extensions.field } : {}),
      ...(typeof e.extensions?.reason === 'string' ? { reason: e.extensions.reason } : {}),
      ...(e.extensions ? { extensions: e.extensions } : {}),
    }));
  } catch {
    // Not the envelope (a proxy's error page): the status tells what is known.
  }
  return new ApiError(res.status, items);
}
