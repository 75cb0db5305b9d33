/** The current user's own record, as GET /auth/me returns it: never password, token or tfa_secret. */
import type { Executor } from '../db/database.ts';
import { ForbiddenError, InvalidCredentialsError, InvalidQueryError } from '../errors.ts';
import type { Accountability } from '../access/accountability.ts';
import { selectUserColumns } from '../users/table.ts';

/** Readable columns of svc_users for oneself; secrets and provider data (auth_data) are left out. */
export const SELF_FIELDS = [
  'id', 'first_name', 'last_name', 'email', 'location', 'title', 'description', 'tags', 'avatar', 'language',
  'theme', 'appearance', 'tfa_enabled', 'status', 'role', 'last_access', 'last_page', 'provider',
  'external_identifier', 'email_notifications', 'require_password_change',
] as const;

const SELF = new Set<string>(SELF_FIELDS);

/** `fields` as given in the query string (comma list or array) -> column names. `*` means all. */
export function selectFields(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [...SELF_FIELDS];
  const list = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => {
    if (typeof v !== 'string') throw new InvalidQueryError('"fields" must be a string or an array of strings.');
    return v.split(',').map((f) => f.trim()).filter(Boolean);
  });
  if (list.includes('*')) return [...SELF_FIELDS];
  const fields = [...new Set(list)];
  for (const f of fields) {
    if (f.includes('.')) throw new InvalidQueryError(`Relational field "${f}" is not supported on /auth/me.`);
    // Directus answers fields one may not read with 403.
    if (!SELF.has(f)) throw new ForbiddenError(`You don't have permission to access field "${f}" in collection "svc_users" or it does not exist.`);
  }
  return fields.length > 0 ? fields : [...SELF_FIELDS];
}

export async function readCurrentUser(db: Executor, accountability: Accountability, fields: string[] = [...SELF_FIELDS]): Promise<Record<string, unknown>> {
  // As Directus' /users/me: no user behind the request is 401 INVALID_CREDENTIALS.
  if (!accountability.user) throw new InvalidCredentialsError();
  const row = await selectUserColumns(db, accountability.user, fields.filter((f) => SELF.has(f)));
  if (!row) throw new InvalidCredentialsError();
  return row;
}
