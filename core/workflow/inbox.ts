/** Reviewers' tasks (SPEC.md > Workflow, GET /workflow-tasks): the active steps of running instances. A caller's
 * tasks are those they are an assignee of (workflow:participate needed); /workflow-tasks/all lists every task
 * with its assignees (admins). Both take `limit` and `page`/`offset`; without `limit` they answer every task. */
import { requireAppPermission } from '../access/app-permissions.ts';
import type { ServiceContext } from '../context.ts';
import { run } from '../db/database.ts';
import { ForbiddenError } from '../errors.ts';
import { pageOf, pageSql, type PageQuery } from './paging.ts';
import { TASK_ACTIONS } from './types.ts';

export interface Task {
  id: string;
  step_id: string;
  instance_id: string;
  workflow_name: string;
  step_name: string;
  collection: string;
  item_id: string | null;
  version_id: string | null;
  status: string;
  activated_at: string | null;
  timeout_at: string | null;
  actions_available: string[];
  assignees?: string[];
}

const TASKS_SQL = `select s.id, s.step_id, s.instance_id, w.name as workflow_name, ws.name as step_name, i.collection,
    i.item as item_id, i.version_id, s.status, s.activated_at, s.timeout_at, s.assignees
  from svc_workflow_instance_steps s
  join svc_workflow_instances i on i.id = s.instance_id
  join svc_workflows w on w.id = i.workflow_id
  join svc_workflow_steps ws on ws.id = s.step_id
  where s.status = 'active' and i.status = 'running'`;
const MINE = ' and exists (select 1 from json_array_elements_text(s.assignees) a where a = $1)';

function shape(row: Task, withAssignees: boolean): Task {
  const { assignees, ...task } = row;
  return { ...task, actions_available: [...TASK_ACTIONS], ...(withAssignees ? { assignees: assignees ?? [] } : {}) };
}

async function reviewer(ctx: ServiceContext): Promise<string> {
  const user = ctx.accountability.user;
  if (!user) throw new ForbiddenError();
  await requireAppPermission(ctx, 'workflow:participate');
  return user;
}

/** A page of tasks (all of them unless `limit` is given) and the number of all of them. */
async function taskPage(ctx: ServiceContext, where: string, params: unknown[], query: PageQuery, withAssignees: boolean): Promise<{ data: Task[]; meta: { total_count: number } }> {
  const page = pageOf(ctx, query, -1);
  const paged = [...params];
  const rows = await run<Task>(ctx.db, `${TASKS_SQL}${where} order by s.activated_at, s.id${pageSql(page, paged)}`, paged);
  const whole = page.limit < 0 && page.offset === 0;
  const total = whole ? rows.length : Number((await run<{ n: number }>(ctx.db, `select count(*)::int as n from (${TASKS_SQL}${where}) t`, params))[0].n);
  return { data: rows.map((r) => shape(r, withAssignees)), meta: { total_count: total } };
}

export async function myTasks(ctx: ServiceContext, query: PageQuery = {}): Promise<{ data: Task[]; meta: { total_count: number } }> {
  const user = await reviewer(ctx);
  return taskPage(ctx, MINE, [user], query, false);
}

export async function countMyTasks(ctx: ServiceContext): Promise<{ count: number }> {
  const user = await reviewer(ctx);
  const [row] = await run<{ count: string | number }>(ctx.db, `select count(*) as count from (${TASKS_SQL}${MINE}) t`, [user]);
  return { count: Number(row.count) };
}

/** The caller's tasks in these instances (realtime subscribers of the task feed: core/realtime/feeds.ts). */
export async function myTasksIn(ctx: ServiceContext, instances: readonly string[]): Promise<Task[]> {
  const user = await reviewer(ctx);
  if (instances.length === 0) return [];
  const rows = await run<Task>(ctx.db, `${TASKS_SQL}${MINE} and s.instance_id = any($2::uuid[]) order by s.activated_at, s.id`, [user, instances]);
  return rows.map((r) => shape(r, false));
}

/** Whether the caller may have tasks at all (a reviewer: signed in, workflow:participate). */
export async function requireReviewer(ctx: ServiceContext): Promise<void> {
  await reviewer(ctx);
}

export async function allTasks(ctx: ServiceContext, query: PageQuery = {}): Promise<{ data: Task[]; meta: { total_count: number } }> {
  if (!ctx.accountability.admin) throw new ForbiddenError();
  return taskPage(ctx, '', [], query, true);
}
