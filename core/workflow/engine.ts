/** The engine: moves an instance through its graph. Automatic steps (start, condition, notification, action)
 * run and pass on at once; an approval step waits for its assignees; an end step completes the instance.
 * Everything runs in the caller's transaction, so a failure anywhere (a promotion, an update_field) undoes the
 * whole move, and the request that caused it gets the error. */
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { systemAccountability } from '../access/accountability.ts';
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { InvalidPayloadError } from '../errors.ts';
import { updateItem } from '../items/write/index.ts';
import { promoteVersion } from '../versions/promote.ts';
import { adminUsers, stepAssignees } from './assignees.ts';
import { notifyUsers } from './notify.ts';
import { matchesFilter, readSubject, type Subject } from './subject.ts';
import type { InstanceRow, InstanceStepRow, StepRow, TransitionRow, TransitionTrigger } from './types.ts';

export interface VersionRef { id: string; collection: string; item: string; delta: unknown; status: string }

/** One move of one instance, inside one transaction. */
export interface EngineRun {
  trx: Transaction<any>;
  /** The caller's context with db = trx (schema, config, events). Item writes use the system accountability. */
  ctx: ServiceContext;
  instance: InstanceRow;
  version: VersionRef | null;
  steps: StepRow[];
  transitions: TransitionRow[];
  /** The user whose action moved the instance (sender of notifications); null for the system. */
  actor: string | null;
}

/* Timestamps use clock_timestamp(): steps entered in one transaction keep their order. */

/** More automatic steps than this in one move means a loop without a waiting step. */
const MAX_AUTOMATIC_STEPS = 100;

export function systemContext(r: EngineRun): ServiceContext {
  return { ...r.ctx, db: r.trx, accountability: systemAccountability() };
}

export async function loadVersion(trx: Transaction<any>, id: string | null): Promise<VersionRef | null> {
  if (!id) return null;
  const [row] = await run<VersionRef>(trx, 'select id, collection, item, delta, status from svc_versions where id = $1', [id]);
  return row ?? null;
}

export async function openRun(ctx: ServiceContext, trx: Transaction<any>, instance: InstanceRow, actor: string | null): Promise<EngineRun> {
  const steps = await run<StepRow>(trx, 'select * from svc_workflow_steps where workflow_id = $1 order by sort_order, key', [instance.workflow_id]);
  const transitions = await run<TransitionRow>(trx, `select t.* from svc_workflow_transitions t join svc_workflow_steps s on s.id = t.to_step_id
    where t.workflow_id = $1 order by s.sort_order, s.key, t.id`, [instance.workflow_id]);
  announceTasks(ctx, trx, instance.id);
  return { trx, ctx: { ...ctx, db: trx }, instance, version: await loadVersion(trx, instance.version_id), steps, transitions, actor };
}

/** The action event `workflow.tasks`: the tasks of these instances may have changed (a run of the engine, a
 * cancellation), after commit. Hooks may listen; realtime subscribers of the task feed are sent their tasks of the
 * instance again (core/realtime/feeds.ts). */
export const TASKS_EVENT = 'workflow.tasks';
export const TASKS_FEED = 'svc_workflow_tasks';

export function announceTasks(ctx: ServiceContext, trx: Transaction<any>, instance: string): void {
  ctx.events?.emitAction(trx, TASKS_EVENT, { collection: TASKS_FEED, keys: [instance] }, ctx.accountability);
}

export function subjectOf(r: EngineRun): Promise<Subject> {
  const v = r.version;
  return readSubject(r.trx, r.ctx.schema, r.instance.collection, v?.item ?? r.instance.item, v?.delta ?? null);
}

function step(r: EngineRun, id: string): StepRow {
  const s = r.steps.find((x) => x.id === id);
  if (!s) throw new InvalidPayloadError('Invalid payload. The workflow graph refers to a missing step.');
  return s;
}

function outgoing(r: EngineRun, from: string, trigger: TransitionTrigger): TransitionRow[] {
  return r.transitions.filter((t) => t.from_step_id === from && t.trigger === trigger);
}

async function recordStep(r: EngineRun, s: StepRow, status: InstanceStepRow['status'], result: string | null, assignees: string[] | null = null): Promise<void> {
  await run(r.trx, `insert into svc_workflow_instance_steps (id, instance_id, step_id, status, assignees, activated_at, completed_at, result)
    values ($1, $2, $3, $4, $5::json, clock_timestamp(), clock_timestamp(), $6)`, [randomUUID(), r.instance.id, s.id, status, assignees ? JSON.stringify(assignees) : null, result]);
}

/** Promotes the version unless it already is (an earlier promote_version step, or POST /versions/{id}/promote). */
async function promoteOnce(r: EngineRun): Promise<void> {
  if (!r.version) return;
  const [current] = await run<{ status: string }>(r.trx, 'select status from svc_versions where id = $1', [r.version.id]);
  if (!current || current.status === 'approved') return;
  await promoteVersion(systemContext(r), r.version.id);
  r.version = { ...r.version, status: 'approved' };
}

async function complete(r: EngineRun, status: 'approved' | 'rejected', at: string | null): Promise<void> {
  if (status === 'approved') await promoteOnce(r);
  await run(r.trx, 'update svc_workflow_instances set status = $2, current_step_id = coalesce($3, current_step_id), completed_at = clock_timestamp() where id = $1',
    [r.instance.id, status, at]);
  r.instance = { ...r.instance, status };
}

/** Continues from a finished step along `trigger` ('approve' or 'reject' after an approval, 'always' after an
 * automatic step). No matching transition completes the instance (approved, or rejected after a rejection). */
export async function advance(r: EngineRun, fromStepId: string, trigger: 'approve' | 'reject' | 'always'): Promise<void> {
  const rejected = trigger === 'reject';
  let next = pick(r, fromStepId, trigger);
  for (let n = 0; ; n++) {
    if (!next) return complete(r, rejected ? 'rejected' : 'approved', null);
    if (n >= MAX_AUTOMATIC_STEPS) throw new InvalidPayloadError('Invalid payload. The workflow loops without reaching an approval or end step.');
    const after = await enter(r, step(r, next), rejected);
    if (after === WAIT || r.instance.status !== 'running') return;
    next = after;
  }
}

function pick(r: EngineRun, from: string, trigger: 'approve' | 'reject' | 'always'): string | null {
  const own = outgoing(r, from, trigger);
  if (own.length) return own[0].to_step_id;
  if (trigger === 'approve') return outgoing(r, from, 'always')[0]?.to_step_id ?? null;
  return null;
}

/** A condition step: the first 'condition' transition whose condition (its own, else the step's
 * options.condition) holds for the item merged with the delta; otherwise its 'always' transition. */
async function conditionTarget(r: EngineRun, s: StepRow): Promise<{ holds: boolean; to: string | null }> {
  const subject = await subjectOf(r);
  for (const t of outgoing(r, s.id, 'condition')) {
    if (matchesFilter(t.condition ?? s.options?.condition ?? null, subject)) return { holds: true, to: t.to_step_id };
  }
  return { holds: false, to: outgoing(r, s.id, 'always')[0]?.to_step_id ?? null };
}

const WAIT = Symbol('wait');

/** What an action step records as its result (svc_workflow_instance_steps.result holds 16 characters, fewer than
 * "send_notification"). */
const ACTION_RESULTS: Record<NonNullable<StepRow['action_type']>, string> = {
  promote_version: 'promoted', send_notification: 'notified', update_field: 'updated',
};

/** Runs a step: WAIT for an approval, else the step to go to next (null: none). */
async function enter(r: EngineRun, s: StepRow, rejected: boolean): Promise<string | null | typeof WAIT> {
  await run(r.trx, 'update svc_workflow_instances set current_step_id = $2 where id = $1', [r.instance.id, s.id]);
  switch (s.type) {
    case 'approval':
      await activateApproval(r, s);
      return WAIT;
    case 'end':
      await recordStep(r, s, rejected ? 'rejected' : 'approved', rejected ? 'rejected' : 'approved');
      await complete(r, rejected ? 'rejected' : 'approved', s.id);
      return null;
    case 'condition': {
      const { holds, to } = await conditionTarget(r, s);
      await recordStep(r, s, 'approved', holds ? 'true' : 'false');
      return to;
    }
    case 'notification': {
      const recipients = await stepAssignees(r.trx, s, await subjectOf(r));
      await notify(r, s, recipients);
      await recordStep(r, s, 'approved', 'sent', recipients);
      break;
    }
    case 'action':
      await runAction(r, s);
      await recordStep(r, s, 'approved', s.action_type ? ACTION_RESULTS[s.action_type] : null);
      break;
    default:
      await recordStep(r, s, 'approved', null);
  }
  return pick(r, s.id, 'always');
}

async function notify(r: EngineRun, s: StepRow, recipients: string[], config: Record<string, unknown> | null = s.options): Promise<void> {
  const subject = typeof config?.subject === 'string' ? config.subject : s.name;
  const message = typeof config?.message === 'string' ? config.message : null;
  await notifyUsers(r.trx, {
    recipients, subject, message, sender: r.actor, events: r.ctx.events,
    collection: r.instance.collection, item: r.version?.item ?? r.instance.item,
  });
}

/** A notification template sent through its channels to the step's recipients, in the engine's transaction (a
 * template that cannot be sent fails the move). Its variables: `collection`, `item`, `version`, `instance`,
 * `step` (the step's name) and `values` (the item merged with the draft). Logs that wait for a worker (email,
 * chat) are found by its scan (NOTIFY_SCAN_INTERVAL). */
async function sendTemplate(r: EngineRun, s: StepRow, templateId: string, recipients: string[]): Promise<void> {
  if (recipients.length === 0) return;
  const item = r.version?.item ?? r.instance.item;
  const variables = {
    collection: r.instance.collection, item, version: r.version?.id ?? null, instance: r.instance.id, step: s.name, values: await subjectOf(r),
  };
  // The template engine (handlebars, ajv) loads with the first workflow notification, not with the process.
  const { prepareTemplateSend, writeTemplateSend } = await import('../notify/trigger.ts');
  const prepared = await prepareTemplateSend(r.trx, r.ctx.config.secret, { templateId, recipients: [...new Set(recipients)], variables });
  await writeTemplateSend(r.trx, prepared, {
    sender: r.actor, scheduledAt: null, metadata: { source: 'workflow', collection: r.instance.collection, item, instance: r.instance.id },
    events: r.ctx.events,
  });
}

async function runAction(r: EngineRun, s: StepRow): Promise<void> {
  switch (s.action_type) {
    case 'promote_version':
      await promoteOnce(r);
      return;
    case 'send_notification': {
      const config = s.action_config;
      const recipients = s.assign_value ? await stepAssignees(r.trx, s, await subjectOf(r)) : [];
      if (Array.isArray(config?.recipients)) recipients.push(...config.recipients.filter((x): x is string => typeof x === 'string'));
      const to = recipients.length ? recipients : r.instance.started_by ? [r.instance.started_by] : [];
      if (typeof config?.template_id === 'string') await sendTemplate(r, s, config.template_id, to);
      else await notify(r, s, to, config);
      return;
    }
    case 'update_field': {
      const config = s.action_config ?? {};
      const item = r.version?.item ?? r.instance.item;
      if (item === null || typeof config.field !== 'string') return;
      await updateItem(systemContext(r), r.instance.collection, item, { [config.field]: config.value });
      return;
    }
    default:
  }
}

/** An approval step becomes an active task of its assignees (the administrators when it resolves to nobody),
 * with its timeout. */
async function activateApproval(r: EngineRun, s: StepRow): Promise<void> {
  let assignees = await stepAssignees(r.trx, s, await subjectOf(r));
  if (assignees.length === 0) assignees = await adminUsers(r.trx);
  await run(r.trx, `insert into svc_workflow_instance_steps (id, instance_id, step_id, status, assignees, activated_at, timeout_at)
    select $1, $2, $3, 'active', $4::json, c.at, c.at + make_interval(mins => $5::int) from (select clock_timestamp() as at) c`,
  [randomUUID(), r.instance.id, s.id, JSON.stringify(assignees), s.timeout_minutes]);
}
