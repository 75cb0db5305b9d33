/** POST/PATCH/DELETE on /users (admin): the items write service on svc_users (coercion, hashing of the
 * password, unknown fields rejected) wrapped in one transaction with the user rules: email uniqueness,
 * password policy, require_password_change, and never removing the last active administrator. */
import type { ServiceContext } from '../context.ts';
import { inTransaction, run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError, UnprocessableContentError } from '../errors.ts';
import { loadPasswordPolicy } from '../auth/password-policy.ts';
import {
  createItem, createItems, deleteItems, updateBatch, updateByQuery, updateItem, updateItems, type PrimaryKey,
} from '../items/write/index.ts';
import { selectKeys } from '../items/select-keys.ts';
import { cascade } from '../admin/system-records.ts';
import type { Query } from '../query/types.ts';
import type { ConfigPort, SchemaPort, StorePort } from '../ports.ts';
import { adminPasswordRule, asPayload, checkFields, checkUniqueEmails, emailsOf, type UserPayload } from './payload.ts';
import { changedUsers, sessionFieldState, touchesSessionFields } from './session-fields.ts';
import { publishRevocation, revokeSessions } from '../auth/user-revocation.ts';
import { isUuid } from '../uuid.ts';
import { countActiveAdmins } from './table.ts';

const USERS = 'svc_users';

function requireAdmin(ctx: ServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

function uuidKeys(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  for (const k of list) if (!isUuid(k)) throw new ForbiddenError();
  return list as string[];
}

/** The users a write may change in a way that ends their sessions (read in its transaction), or null. */
type Watched = ((ctx: ServiceContext) => Promise<string[]>) | null;

/** Runs a write in one transaction; 422 when it leaves no active administrator (as Directus). Users of
 * `watched` whose password, status, role or two-factor changed lose their other sessions and older access
 * tokens (core/auth/user-revocation.ts; the caller's own session survives a change to themselves). Access
 * caches hold users by id and token, so every user write bumps the schema version after commit. */
async function write<T>(services: ConfigPort & SchemaPort & StorePort, ctx: ServiceContext, guardAdmins: boolean, fn: (ctx: ServiceContext) => Promise<T>, watched: Watched = null): Promise<T> {
  const [result, revocation] = await inTransaction(ctx.db, async (trx) => {
    const w = { ...ctx, db: trx };
    const before = guardAdmins ? await countActiveAdmins(trx) : 0;
    const ids = watched ? await watched(w) : [];
    const state = await sessionFieldState(trx, ids);
    const out = await fn(w);
    if (guardAdmins && before > 0 && await countActiveAdmins(trx) === 0) {
      throw new UnprocessableContentError("You can't remove the last admin user from the admin role.");
    }
    const changed = changedUsers(state, await sessionFieldState(trx, ids));
    return [out, changed.length > 0 ? await revokeSessions(trx, changed, ctx.accountability.session ?? null) : null] as const;
  });
  await publishRevocation(services, revocation);
  await services.schema.invalidate();
  return result;
}

/** Watches `ids` when a payload touches a field that ends sessions. */
function watch(payloads: UserPayload[], ids: (ctx: ServiceContext) => unknown[] | Promise<unknown[]>): Watched {
  if (!payloads.some(touchesSessionFields)) return null;
  return async (w) => (await ids(w)).map(String);
}

function touchesAdminRights(payload: UserPayload): boolean {
  return payload.role !== undefined || payload.status !== undefined;
}

export async function createUsers(services: ConfigPort & SchemaPort & StorePort, ctx: ServiceContext, body: unknown): Promise<PrimaryKey | PrimaryKey[]> {
  requireAdmin(ctx);
  const many = Array.isArray(body);
  const payloads = (many ? body : [body]).map((p) => adminPasswordRule(asPayload(p)));
  const policy = await loadPasswordPolicy(ctx.db);
  for (const p of payloads) checkFields(p, policy);
  return write(services, ctx, false, async (w) => {
    await checkUniqueEmails(w.db, emailsOf(payloads), []);
    return many ? createItems(w, USERS, payloads) : createItem(w, USERS, payloads[0]);
  });
}

export async function updateUser(services: ConfigPort & SchemaPort & StorePort, ctx: ServiceContext, key: string, body: unknown): Promise<PrimaryKey> {
  requireAdmin(ctx);
  const [id] = uuidKeys(key);
  const payload = adminPasswordRule(asPayload(body));
  checkFields(payload, await loadPasswordPolicy(ctx.db));
  return write(services, ctx, touchesAdminRights(payload), async (w) => {
    await checkUniqueEmails(w.db, emailsOf([payload]), [id]);
    return updateItem(w, USERS, id, payload);
  }, watch([payload], () => [id]));
}

/** PATCH /users with `{keys, data}`: the same data on every key. */
export async function updateUsers(services: ConfigPort & SchemaPort & StorePort, ctx: ServiceContext, keys: unknown, data: unknown): Promise<PrimaryKey[]> {
  requireAdmin(ctx);
  const ids = uuidKeys(keys);
  const payload = adminPasswordRule(asPayload(data));
  checkFields(payload, await loadPasswordPolicy(ctx.db));
  return write(services, ctx, touchesAdminRights(payload), async (w) => {
    await checkUniqueEmails(w.db, ids.flatMap(() => emailsOf([payload])), ids);
    return updateItems(w, USERS, ids, payload);
  }, watch([payload], () => ids));
}

/** PATCH /users with `{query, data}`. */
export async function updateUsersByQuery(services: ConfigPort & SchemaPort & StorePort, ctx: ServiceContext, query: Query, data: unknown): Promise<PrimaryKey[]> {
  requireAdmin(ctx);
  const payload = adminPasswordRule(asPayload(data));
  checkFields(payload, await loadPasswordPolicy(ctx.db));
  return write(services, ctx, touchesAdminRights(payload), async (w) => {
    if (typeof payload.email === 'string') {
      const ids = (await selectKeys(w, USERS, query)).map(String);
      await checkUniqueEmails(w.db, ids.map(() => payload.email as string), ids);
    }
    return updateByQuery(w, USERS, query, payload);
  }, watch([payload], (w) => selectKeys(w, USERS, query)));
}

/** PATCH /users with an array of objects, each with its id. */
export async function updateUserBatch(services: ConfigPort & SchemaPort & StorePort, ctx: ServiceContext, items: unknown[]): Promise<PrimaryKey[]> {
  requireAdmin(ctx);
  const payloads = items.map((item) => adminPasswordRule(asPayload(item)));
  const policy = await loadPasswordPolicy(ctx.db);
  for (const p of payloads) checkFields(p, policy);
  const ids = payloads.map((p) => p.id);
  uuidKeys(ids);
  return write(services, ctx, payloads.some(touchesAdminRights), async (w) => {
    await checkUniqueEmails(w.db, emailsOf(payloads), ids as string[]);
    return updateBatch(w, USERS, payloads);
  }, watch(payloads, () => ids));
}

/** Columns that reference svc_users without an ON DELETE action: cleared first, so deleting a user never
 * fails on them (Directus clears notification senders the same way). Activity has no foreign key: its
 * rows keep the deleted user's uuid. */
const NULLIFY = [
  'update svc_versions set user_updated = null where user_updated = any($1::uuid[])',
  'update svc_notifications set sender = null where sender = any($1::uuid[])',
  'update svc_comments set user_updated = null where user_updated = any($1::uuid[])',
];

export async function deleteUsers(services: ConfigPort & SchemaPort & StorePort, ctx: ServiceContext, keys: unknown): Promise<void> {
  requireAdmin(ctx);
  const ids = uuidKeys(keys);
  if (ids.length === 0) throw new InvalidPayloadError('Invalid payload. "keys" must not be empty.');
  await write(services, ctx, true, async (w) => {
    for (const sql of NULLIFY) await run(w.db, sql, [ids]);
    // The user's own policy assignments go through the items service, so revoking them is audited too.
    for (const id of ids) await cascade(w, 'svc_access', 'user', id, null);
    await deleteItems(w, USERS, ids);
  });
}
