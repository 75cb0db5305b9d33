/** The scheduler (DESIGN.md > Durable jobs): a due svc_schedules row is the job. Each is claimed with FOR UPDATE SKIP
 * LOCKED in its own transaction, run through the versions and items services with the accountability of the user
 * who scheduled it as it is now (role, policies, status), and marked done in that same transaction: the promotion
 * (or unpublishing) and the mark commit together or not at all, so with several processes scanning at once each
 * schedule runs exactly once, and a row that fell due while every process was down runs at the next start.
 *
 * A run the rules refuse (the user lost the right, the version was deleted or promoted meanwhile, the write fails
 * validation) is rolled back and the row marked failed with the reason, in words for the person who scheduled it.
 * A run that broke off for another reason (the database went away) stays scheduled and is tried again on the next
 * scans, up to MAX_ATTEMPTS, then marked failed. Runs only in the container and standalone processes. */
import type { Accountability } from '../access/accountability.ts';
import { buildAccountability } from '../access/resolve.ts';
import type { ServiceContext } from '../context.ts';
import { inTransaction, type Executor } from '../db/database.ts';
import { ErrorList, ForbiddenError, mapDatabaseError, ServiceError } from '../errors.ts';
import { updateItem } from '../items/write/index.ts';
import type { AccessPort, ConfigPort, DatabasePort, EventsPort, SchemaPort } from '../ports.ts';
import type { SchemaOverview } from '../schema/types.ts';
import { requirePromoter } from '../versions/access.ts';
import { promoteByCaller } from '../versions/promote.ts';
import { loadVersion } from '../versions/rows.ts';
import { itemExists, storedTarget } from '../versions/target.ts';
import { requirePublishRights, requireUnpublishRights } from './access.ts';
import { claimDueById, claimScheduled, countAttempt, markRun, nextDue, peekDue } from './table.ts';
import type { ScheduleRow } from './types.ts';
import { cannotUnpublishMessage, unpublishChange } from './unpublish.ts';

export type SchedulerServices = AccessPort & ConfigPort & DatabasePort & EventsPort & SchemaPort;

/** Runs that broke off unexpectedly are tried this many times in all. */
export const MAX_ATTEMPTS = 3;

export interface RunResult {
  done: string[];
  failed: { id: string; error: string }[];
  /** Broke off unexpectedly; left scheduled for the next scan. */
  retried: string[];
}

/** The rules refused the run: the row is marked failed with `message`. */
class Refused extends Error {}

const WHO = 'The person who scheduled this';

/** A service error as a sentence (the envelope's "Invalid payload." prefix is for API clients). */
function sentence(err: ServiceError | ErrorList): string {
  const messages = err instanceof ErrorList ? err.errors.map((e) => e.message) : [err.message];
  return messages.map((m) => m.replace(/^Invalid (payload|query)\.\s*/, '')).join(' ');
}

/** Runs `fn`; a refusal by the rules (a 4xx) becomes Refused with `forbidden` as the words for a FORBIDDEN. */
async function attempt<T>(forbidden: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (raw) {
    const err = mapDatabaseError(raw);
    if (err instanceof ForbiddenError) throw new Refused(forbidden);
    if (err instanceof ErrorList && err.errors.every((e) => e.status < 500)) throw new Refused(sentence(err));
    if (err instanceof ServiceError && err.status < 500) throw new Refused(sentence(err));
    throw err;
  }
}

/** The scheduling user's accountability as it is now, or why there is none to run with. */
async function accountabilityOf(services: SchedulerServices, schema: SchemaOverview, user: string | null): Promise<Accountability | Refused> {
  const principal = user ? await services.access.user(schema.version, user) : null;
  if (!principal) return new Refused(`${WHO} no longer has an account.`);
  if (principal.status !== 'active') return new Refused(`${WHO} is no longer an active user (${principal.status}).`);
  const template = await services.access.resolve(schema.version, principal.role, principal.id);
  return buildAccountability(template, principal.id, { ip: null, userAgent: null, origin: null });
}

async function publish(ctx: ServiceContext, row: ScheduleRow): Promise<void> {
  const version = row.version ? await loadVersion(ctx.db, row.version, { lock: true }) : null;
  if (!version) throw new Refused('The version was deleted before its time came.');
  if (version.status === 'approved') throw new Refused('The version had already been promoted (approved) before its time came.');
  // A draft of an item that existed (it has the item's hash) does not bring a deleted item back; a draft of new
  // content (no hash) creates its item, as promote does.
  const target = await attempt('The item can no longer be found.', async () => storedTarget(ctx, version.collection, version.item));
  if (version.hash !== null && !(await itemExists(ctx, target))) throw new Refused('The item was deleted before its time came.');
  const underReview = version.status === 'pending';
  await attempt(underReview ? `The version is under review, and ${WHO.toLowerCase()} may not publish it before the review ends.` : `${WHO} may no longer publish this version.`,
    () => requirePromoter(ctx, version));
  await attempt(`${WHO} may no longer publish this version.`, () => requirePublishRights(ctx, version));
  await attempt(`${WHO} may no longer change this item.`, () => promoteByCaller(ctx, version.id));
}

async function unpublish(ctx: ServiceContext, row: ScheduleRow): Promise<void> {
  if (!Object.hasOwn(ctx.schema.collections, row.collection)) throw new Refused(`The collection "${row.collection}" no longer exists.`);
  const target = await attempt('The item can no longer be found.', async () => storedTarget(ctx, row.collection, row.item));
  const change = await unpublishChange(ctx.db, target.collection);
  if (!change) throw new Refused(cannotUnpublishMessage(row.collection));
  if (!(await itemExists(ctx, target))) throw new Refused('The item no longer exists.');
  await attempt(`${WHO} may no longer change this item.`, () => requireUnpublishRights(ctx, target, change));
  await attempt(`${WHO} may no longer change this item.`, () => updateItem(ctx, row.collection, target.key, change));
}

/** Runs one claimed row in `trx` (its claiming transaction) as `accountability`. */
async function execute(services: SchedulerServices, schema: SchemaOverview, accountability: Accountability, trx: Executor, row: ScheduleRow): Promise<void> {
  const ctx: ServiceContext = { db: trx, schema, accountability, config: services.config, events: services.events };
  if (row.action === 'publish') await publish(ctx, row);
  else await unpublish(ctx, row);
}

class RunError extends Error {
  constructor(readonly scheduleId: string, readonly error: unknown) { super(`schedule ${scheduleId} failed`); }
}

/** Marks a row failed, unless another process took it or it is no longer scheduled. */
async function markFailed(db: Executor, id: string, message: string): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (!(await claimScheduled(trx, id))) return false;
    await markRun(trx, id, 'failed', message);
    return true;
  });
}

/** Runs every schedule due at `now`; answers what it did. */
export async function runDueSchedules(services: SchedulerServices, now: Date = new Date()): Promise<RunResult> {
  const db = services.database.db;
  const result: RunResult = { done: [], failed: [], retried: [] };
  const skip: string[] = [];
  for (;;) {
    // The row and whose rights it runs with are read before its transaction opens: the user's accountability
    // comes from the access resolver, which reads on its own connection (the embedded engine has one).
    const next = await peekDue(db, now, skip);
    if (!next) return result;
    let claimed: ScheduleRow | null;
    try {
      const schema = await services.schema.get();
      const who = await accountabilityOf(services, schema, next.scheduled_by);
      claimed = await inTransaction(db, async (trx) => {
        const row = await claimDueById(trx, next.id, now);
        // Taken by another process meanwhile, or rescheduled by someone else (whose rights were not resolved):
        // left to the next scan.
        if (!row || row.scheduled_by !== next.scheduled_by) return null;
        try {
          if (who instanceof Refused) throw who;
          await execute(services, schema, who, trx, row);
        } catch (err) {
          throw new RunError(row.id, err);
        }
        await markRun(trx, row.id, 'done', null);
        return row;
      });
    } catch (err) {
      if (!(err instanceof RunError)) throw err;
      const { scheduleId: id, error } = err;
      skip.push(id);
      if (error instanceof Refused) {
        if (await markFailed(db, id, error.message)) result.failed.push({ id, error: error.message });
        continue;
      }
      // Not the rules: the database or the process. Counted, and tried again on later scans.
      const message = error instanceof Error ? error.message : String(error);
      const attempts = await inTransaction(db, async (trx) => ((await claimScheduled(trx, id)) ? countAttempt(trx, id) : 0));
      if (attempts >= MAX_ATTEMPTS) {
        const reason = `The run failed ${attempts} times: ${message}`;
        if (await markFailed(db, id, reason)) result.failed.push({ id, error: reason });
      } else if (attempts > 0) {
        result.retried.push(id);
      }
      continue;
    }
    if (claimed) result.done.push(claimed.id);
    else skip.push(next.id);
  }
}

/** Runs the scheduler in this (container or standalone) process: a scan at once (rows that fell due while the
 * process was down), then whenever the next row falls due, and at least every `intervalMs` (rows created by other
 * processes). Returns a stop function that waits for a scan under way. */
export function startPublishSchedules(services: SchedulerServices, intervalMs: number): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let scanning: Promise<void> = Promise.resolve();
  const log = services.config.logLevel !== 'silent';

  const scan = async (): Promise<void> => {
    const started = Date.now();
    try {
      const { done, failed, retried } = await runDueSchedules(services);
      if ((done.length || failed.length || retried.length) && log) {
        console.log(`publish schedules: ${done.length} done, ${failed.length} failed, ${retried.length} to retry`);
      }
    } catch (err) {
      console.error('publish schedules failed:', (err as Error).message);
    }
    let delay = intervalMs;
    try {
      const next = await nextDue(services.database.db);
      const wait = next ? next.getTime() - Date.now() : Infinity;
      if (wait > 0) delay = Math.min(wait, intervalMs);
      // Due since this scan began (a slow scan, a loaded machine): at once. A row due before it began was skipped by
      // it (another process holds it, or it is to be retried): the interval.
      else if (next && next.getTime() > started) delay = 0;
    } catch {
      // The database is away: try again after the interval.
    }
    schedule(delay);
  };

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => { scanning = scan(); }, Math.max(delay, 10));
    timer.unref();
  }

  scanning = scan();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await scanning;
  };
}
