/** Every statement on svc_schedules. A caller's create, reschedule and cancel go through the items write service
 * (elevated: the rules were checked in access.ts), so they land in svc_activity and svc_revisions under the caller
 * like any record change; the scheduler's own claims and marks are plain statements in the transaction of the run. */
import type { ServiceContext } from '../context.ts';
import { run, type Executor } from '../db/database.ts';
import { createItem, updateItem } from '../items/write/index.ts';
import { isUuid } from '../uuid.ts';
import type { ScheduleAction, ScheduleRow, ScheduleStatus } from './types.ts';

export const COLLECTION = 'svc_schedules';

const COLUMNS = 'id, collection, item, action, version, scheduled_at, status, scheduled_by, attempts';

function normalise(row: ScheduleRow): ScheduleRow {
  return { ...row, scheduled_at: new Date(row.scheduled_at), attempts: Number(row.attempts) };
}

/** The schedule, or null when the id is not a uuid or names no row. `lock` takes the row `for update`. */
export async function loadSchedule(db: Executor, id: string, opts: { lock?: boolean } = {}): Promise<ScheduleRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await run<ScheduleRow>(db, `select ${COLUMNS} from svc_schedules where id = $1${opts.lock ? ' for update' : ''}`, [id]);
  return row ? normalise(row) : null;
}

/** The publishing still to come of a version, if any (at most one: svc_schedules_version_once_idx). */
export async function pendingPublish(db: Executor, version: string): Promise<ScheduleRow | null> {
  const [row] = await run<ScheduleRow>(db, `select ${COLUMNS} from svc_schedules where version = $1 and action = 'publish' and status = 'scheduled'`, [version]);
  return row ? normalise(row) : null;
}

/** The earliest time a scheduled row falls due, or null when none waits. */
export async function nextDue(db: Executor): Promise<Date | null> {
  const [row] = await run<{ at: Date | string | null }>(db, "select min(scheduled_at) as at from svc_schedules where status = 'scheduled'");
  return row?.at ? new Date(row.at) : null;
}

/** The earliest row due at `now` that no transaction holds (and is not in `skip`), without keeping a lock: what
 * the scheduler looks at before it claims the row (claimDueById) in the run's transaction. */
export async function peekDue(db: Executor, now: Date, skip: readonly string[]): Promise<ScheduleRow | null> {
  const [row] = await run<ScheduleRow>(db, `select ${COLUMNS} from svc_schedules
    where status = 'scheduled' and scheduled_at <= $1 and id <> all($2::uuid[])
    order by scheduled_at, id limit 1 for update skip locked`, [now, skip]);
  return row ? normalise(row) : null;
}

/** Claims the row when it is still scheduled and due at `now` and no other transaction holds it, locked until the
 * claiming transaction ends: another process skips it, and once marked it no longer matches. */
export async function claimDueById(trx: Executor, id: string, now: Date): Promise<ScheduleRow | null> {
  const [row] = await run<ScheduleRow>(trx, `select ${COLUMNS} from svc_schedules
    where id = $1 and status = 'scheduled' and scheduled_at <= $2 for update skip locked`, [id, now]);
  return row ? normalise(row) : null;
}

/** Claims one row again by id, when it is still scheduled and nobody holds it. */
export async function claimScheduled(trx: Executor, id: string): Promise<ScheduleRow | null> {
  const [row] = await run<ScheduleRow>(trx, `select ${COLUMNS} from svc_schedules where id = $1 and status = 'scheduled' for update skip locked`, [id]);
  return row ? normalise(row) : null;
}

/** Marks a claimed row as run: done, or failed with the reason (date_updated: when the row last changed, so a list of
 * past schedules sorts by when each ended: ran, or was cancelled). */
export async function markRun(trx: Executor, id: string, status: 'done' | 'failed', error: string | null): Promise<void> {
  await run(trx, 'update svc_schedules set status = $2, ran_at = clock_timestamp(), date_updated = clock_timestamp(), error = $3 where id = $1', [id, status, error]);
}

/** Counts a run that broke off unexpectedly (the row stays scheduled); answers the attempts so far. */
export async function countAttempt(trx: Executor, id: string): Promise<number> {
  const [row] = await run<{ attempts: number }>(trx, 'update svc_schedules set attempts = attempts + 1 where id = $1 returning attempts', [id]);
  return Number(row?.attempts ?? 0);
}

function elevated(ctx: ServiceContext): ServiceContext {
  return { ...ctx, system: true, accountability: { ...ctx.accountability, admin: true } };
}

export interface NewSchedule {
  collection: string;
  item: string;
  action: ScheduleAction;
  version: string | null;
  scheduledAt: Date;
}

export async function insertSchedule(ctx: ServiceContext, data: NewSchedule): Promise<string> {
  const now = new Date().toISOString();
  const user = ctx.accountability.user;
  return String(await createItem(elevated(ctx), COLLECTION, {
    collection: data.collection, item: data.item, action: data.action, version: data.version,
    scheduled_at: data.scheduledAt.toISOString(), status: 'scheduled', scheduled_by: user, user_updated: user, date_created: now, date_updated: now,
  }));
}

export interface ScheduleChange {
  scheduledAt?: Date;
  status?: ScheduleStatus;
}

/** A caller's change: a new time (the caller becomes whose rights the run uses) or a cancellation. */
export async function changeSchedule(ctx: ServiceContext, id: string, change: ScheduleChange): Promise<void> {
  const user = ctx.accountability.user;
  const data: Record<string, unknown> = { user_updated: user, date_updated: new Date().toISOString() };
  if (change.scheduledAt) Object.assign(data, { scheduled_at: change.scheduledAt.toISOString(), scheduled_by: user, attempts: 0 });
  if (change.status) data.status = change.status;
  await updateItem(elevated(ctx), COLLECTION, id, data);
}
