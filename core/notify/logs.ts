/** The notification log endpoints (SPEC.md > Notification module, Notification log status).
 *
 * Who may call them (SPEC.md leaves the Auth column blank): any authenticated principal (anonymous -> 401,
 * functions/http/auth-required.ts), then admins, or non-admins holding the matching permission on
 * svc_notify_logs: read for the list, one log and the stats; update for cancel; delete for delete. Reads go
 * through the items read services with ctx.system, so permission row filters and field lists apply (the stats
 * count only the rows the caller may read). Cancel and delete check only that the permission exists (SPEC.md >
 * Items 5: the row filter is no ownership guard on writes). A log that does not exist is 403 FORBIDDEN, as a
 * missing item is everywhere else (Directus).
 *
 * Cancel is one conditional statement (`where id = $1 and status = 'pending'`), so it either wins against the
 * worker's claim (the worker then finds no pending row) or loses cleanly (400 naming the status the worker
 * moved it to). Delete locks the row and refuses a log in `sending` (the worker is handing it to a provider).
 *
 * Logs of direct service mail are admin-only (core/access/admin-only-rows.ts): reads leave them out through the
 * permission, and cancel or delete by a non-admin treats them as missing (403). Cancelling one drops its sealed
 * message (core/notify/direct.ts). */
import type { ServiceContext } from '../context.ts';
import { requirePermission, type PermissionAction } from '../access/permissions.ts';
import { inTransaction, run } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { readItem, readItemData, readItems, type QueryInput } from '../items/read.ts';
import { deleteItem } from '../items/write/index.ts';
import type { Query } from '../query/types.ts';
import { systemContext } from '../system/service.ts';

export const LOGS = 'svc_notify_logs';

export const LOG_STATUSES = ['pending', 'sending', 'sent', 'delivered', 'bounced', 'rejected', 'failed', 'cancelled'] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

export type LogStats = { total: number } & Record<LogStatus, number>;

async function authorize(ctx: ServiceContext, action: PermissionAction): Promise<ServiceContext> {
  const sys = systemContext(ctx);
  if (!ctx.accountability.admin) await requirePermission(sys, LOGS, action);
  return sys;
}

/** Log ids are integers; anything else names no log (403, like a missing one). */
export function parseLogId(raw: string): number {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id < 1) throw new ForbiddenError();
  return id;
}

export async function listLogs(ctx: ServiceContext, input: QueryInput): Promise<string> {
  return readItems(await authorize(ctx, 'read'), LOGS, input);
}

export async function readLog(ctx: ServiceContext, id: string, input: QueryInput): Promise<string> {
  return readItem(await authorize(ctx, 'read'), LOGS, parseLogId(id), input);
}

const EVENTS = 'svc_notify_delivery_events';

/** GET /notify/logs/{id}/events: the delivery events of one log (svc_notify_delivery_events, append-only), in the
 * order they happened unless the query sorts otherwise. The caller must be able to read the log (as GET
 * /notify/logs/{id}: admins, or read permission on svc_notify_logs whose row filter lets them see it; service
 * mail is admins' only) and, unless admin, hold read permission on svc_notify_delivery_events, whose row filter
 * and fields apply: a provider's raw report is no less private than the log. */
export async function listLogEvents(ctx: ServiceContext, rawId: string, input: QueryInput): Promise<string> {
  const sys = await authorize(ctx, 'read');
  const id = parseLogId(rawId);
  if (await readItemData(sys, LOGS, id, { fields: ['id'] }) === null) throw new ForbiddenError();
  const q: Query = typeof input.query === 'function' ? input.query() : input.query;
  const scope = { log_id: { _eq: id } };
  return readItems(sys, EVENTS, { ...q, filter: q.filter ? { _and: [q.filter, scope] } : scope, sort: q.sort ?? ['occurred_at', 'id'] });
}

/** The rendered content of one log and its channel, as the caller may read them (GET /notify/logs/{id}/content). */
export async function readLogContent(ctx: ServiceContext, rawId: string): Promise<{ channel: string; content: string }> {
  const sys = await authorize(ctx, 'read');
  const text = await readItemData(sys, LOGS, parseLogId(rawId), { fields: ['channel', 'content_rendered'] });
  if (text === null) throw new ForbiddenError();
  const row = JSON.parse(text) as { channel?: unknown; content_rendered?: unknown };
  return { channel: String(row.channel ?? ''), content: typeof row.content_rendered === 'string' ? row.content_rendered : '' };
}

const STATS_QUERY: Query = { aggregate: { count: ['*'] }, groupBy: ['status'], limit: -1 };

/** Counts per status of the logs the caller may read; `total` is their sum. Every status is present (0 when none). */
export async function logStats(ctx: ServiceContext): Promise<LogStats> {
  const text = await readItems(await authorize(ctx, 'read'), LOGS, { query: STATS_QUERY, cacheKey: '\u0000notify-log-stats' });
  const rows = (JSON.parse(text) as { data: { status: string; count: unknown }[] }).data;
  const stats = { total: 0 } as LogStats;
  for (const s of LOG_STATUSES) stats[s] = 0;
  for (const row of rows) {
    const n = Number(row.count);
    stats.total += n;
    if ((LOG_STATUSES as readonly string[]).includes(row.status)) stats[row.status as LogStatus] += n;
  }
  return stats;
}

/** SQL: the log is direct service mail (the rule of core/access/admin-only-rows.ts). */
const DIRECT = "(template_id is null and channel = 'email')";

/** SQL condition limiting a write to the logs the caller may reach ($2: whether the caller is an admin). */
const REACHABLE = `($2::boolean or not ${DIRECT})`;

async function currentStatus(ctx: ServiceContext, id: number): Promise<string> {
  const [row] = await run<{ status: string }>(ctx.db, `select status from svc_notify_logs where id = $1 and ${REACHABLE}`, [id, ctx.accountability.admin]);
  if (!row) throw new ForbiddenError();
  return row.status;
}

/** pending -> cancelled, atomically; anything else is 400 with the current status. */
export async function cancelLog(ctx: ServiceContext, rawId: string): Promise<number> {
  await authorize(ctx, 'update');
  const id = parseLogId(rawId);
  const rows = await run(ctx.db, `update svc_notify_logs set status = 'cancelled', content_sealed = null, updated_at = now()
    where id = $1 and status = 'pending' and ${REACHABLE} returning id`, [id, ctx.accountability.admin]);
  if (rows.length > 0) return id;
  const status = await currentStatus(ctx, id);
  throw new InvalidPayloadError(`Only a pending log can be cancelled; this log is "${status}".`, { status });
}

/** Deletes a log unless the worker is sending it (400). Its delivery events keep their rows (log_id set null). */
export async function deleteLog(ctx: ServiceContext, rawId: string): Promise<void> {
  const sys = await authorize(ctx, 'delete');
  const id = parseLogId(rawId);
  await inTransaction(ctx.db, async (trx) => {
    const [row] = await run<{ status: string }>(trx, `select status from svc_notify_logs where id = $1 and ${REACHABLE} for update`, [id, ctx.accountability.admin]);
    if (!row) throw new ForbiddenError();
    if (row.status === 'sending') throw new InvalidPayloadError('A log that is being sent cannot be deleted.', { status: row.status });
    await deleteItem({ ...sys, db: trx }, LOGS, id);
  });
}
