/** Trigger recipients (SPEC.md > POST /notify/trigger): each an email address or a user id. For email an address
 * is used as given and a user id becomes the user's email; in-app delivery needs users (a user id, or the address of
 * a user); chat posts once to the provider's url and keeps the list as given. Anything else is a 400 naming it. */
import type { Executor } from '../db/database.ts';
import { InvalidPayloadError } from '../errors.ts';
import { isUuid } from '../uuid.ts';
import { selectEmailsOf, selectUsersByEmails } from '../users/table.ts';

export const MAX_RECIPIENTS = 100;

const EMAIL = /^[^\s@<>()[\],;:"\\]+@[^\s@<>()[\],;:"\\]+\.[^\s@<>()[\],;:"\\]+$/;

export function isEmail(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 254 && EMAIL.test(v);
}

/** A list of addresses (`cc`, `bcc`), bounded, each checked. */
export function emailList(field: string, raw: unknown, required = false): string[] {
  if (raw === undefined || raw === null) {
    if (required) throw new InvalidPayloadError(`"${field}" is required`, { field });
    return [];
  }
  if (!Array.isArray(raw)) throw new InvalidPayloadError(`"${field}" must be an array`, { field });
  if (required && raw.length === 0) throw new InvalidPayloadError(`"${field}" must contain at least 1 items`, { field });
  if (raw.length > MAX_RECIPIENTS) throw new InvalidPayloadError(`"${field}" must contain less than or equal to ${MAX_RECIPIENTS} items`, { field });
  for (const v of raw) if (!isEmail(v)) throw new InvalidPayloadError(`"${field}" holds ${JSON.stringify(v)}, which is not an email address`, { field });
  return raw as string[];
}

export function recipientList(raw: unknown): string[] {
  if (raw === undefined || raw === null) throw new InvalidPayloadError('"recipients" is required', { field: 'recipients' });
  if (!Array.isArray(raw)) throw new InvalidPayloadError('"recipients" must be an array', { field: 'recipients' });
  if (raw.length === 0) throw new InvalidPayloadError('"recipients" must contain at least 1 items', { field: 'recipients' });
  if (raw.length > MAX_RECIPIENTS) throw new InvalidPayloadError(`"recipients" must contain less than or equal to ${MAX_RECIPIENTS} items`, { field: 'recipients' });
  for (const v of raw) {
    if (!isEmail(v) && !isUuid(v)) throw new InvalidPayloadError(`Recipient ${JSON.stringify(v)} is neither an email address nor a user id`, { field: 'recipients', recipient: v });
  }
  return [...new Set(raw as string[])];
}

/** POST /notify/test-send's recipients for a channel that takes them as given (chat) or looks them up itself (in-app). */
export function plainRecipientList(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new InvalidPayloadError('"recipients" is required (a non-empty array)', { field: 'recipients' });
  if (raw.length > 100 || raw.some((r) => typeof r !== 'string' || r.length > 255)) throw new InvalidPayloadError('"recipients" must hold at most 100 strings', { field: 'recipients' });
  return raw as string[];
}

/** isUuid without narrowing (recipients are strings either way). */
const uuid = (r: string): boolean => isUuid(r);

export interface ResolvedRecipients {
  /** For email: addresses. */
  emails(): string[];
  /** For in-app: user ids. */
  users(): string[];
}

/** Looks every user id (and, for in-app, every address) up once. */
export async function resolveRecipients(db: Executor, recipients: string[], needUsers: boolean): Promise<ResolvedRecipients> {
  const ids = recipients.filter((r) => uuid(r));
  const addresses = recipients.filter((r) => !uuid(r));
  const byId = new Map<string, string | null>();
  if (ids.length) {
    for (const r of await selectEmailsOf(db, ids)) byId.set(r.id, r.email);
  }
  const byEmail = new Map<string, string>();
  if (needUsers && addresses.length) {
    const rows = await selectUsersByEmails(db, addresses.map((a) => a.toLowerCase()));
    for (const r of rows) byEmail.set(r.email.toLowerCase(), r.id);
  }
  for (const id of ids) if (!byId.has(id)) throw new InvalidPayloadError(`Recipient "${id}" is not a user`, { field: 'recipients', recipient: id });
  return {
    emails() {
      return [...new Set(recipients.map((r) => {
        if (!uuid(r)) return r;
        const email = byId.get(r);
        if (!email) throw new InvalidPayloadError(`Recipient "${r}" has no email address`, { field: 'recipients', recipient: r });
        return email;
      }))];
    },
    users() {
      return [...new Set(recipients.map((r) => {
        if (uuid(r)) return r;
        const id = byEmail.get(r.toLowerCase());
        if (!id) throw new InvalidPayloadError(`Recipient "${r}" is not a user: in-app notifications go to users`, { field: 'recipients', recipient: r });
        return id;
      }))];
    },
  };
}
