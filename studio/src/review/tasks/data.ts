/** The review inbox's records as the API answers them (GET /workflow-tasks, /workflow-tasks/all,
 * /workflow-instances/{id}), their queries, and the decisions (approve, reject, delegate, comment; an admin's
 * cancel). Every query key starts with 'tasks', so one invalidation after a decision refreshes the inbox, the
 * instance and the badges of the module bar and the section nav (../task-count.ts). */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { request, requestList } from '../../api/client.ts';
import { ApiError, messageOf } from '../../api/errors.ts';
import type { operations } from '../../api/schema';

/** A review task as GET /workflow-tasks[/all] answers it: the OpenAPI document's shape (core/openapi/system/workflow.ts). */
export type Task = NonNullable<operations['readAllWorkflowTasks']['responses'][200]['content']['application/json']['data']>[number];

export type TaskAction = Task['actions_available'][number];

/** What an assignee may do on an active step (the API's actions_available). */
export const TASK_ACTIONS: TaskAction[] = ['approve', 'reject', 'delegate', 'comment'];

export type InstanceStatus = 'running' | 'approved' | 'rejected' | 'cancelled';
export type StepStatus = 'pending' | 'active' | 'approved' | 'rejected' | 'skipped' | 'timed_out' | 'cancelled';
export type ActionKind = 'approve' | 'reject' | 'delegate' | 'comment' | 'cancel' | 'escalate';

export interface Approval { user: string | null; timestamp: string; system?: boolean }

export interface InstanceStep {
  id: string;
  step_id: string;
  status: StepStatus;
  assignees: string[] | null;
  activated_at: string | null;
  timeout_at: string | null;
  completed_at: string | null;
  approvals: Approval[];
  result: string | null;
}

export interface WorkflowStep {
  id: string;
  key: string;
  name: string;
  type: 'start' | 'approval' | 'condition' | 'notification' | 'action' | 'end';
  approval_mode: 'any' | 'all' | 'majority';
  sort_order: number;
  timeout_minutes: number | null;
  timeout_action: 'auto-approve' | 'auto-reject' | 'escalate' | 'notify' | null;
}

export interface LogEntry {
  id: string;
  instance_step_id: string | null;
  user_id: string | null;
  kind: ActionKind;
  comment: string | null;
  to_user: string | null;
  created_at: string;
}

export interface Instance {
  id: string;
  workflow_id: string;
  workflow_name: string | null;
  collection: string;
  item: string | null;
  version_id: string | null;
  status: InstanceStatus;
  current_step_id: string | null;
  started_by: string | null;
  started_at: string;
  completed_at: string | null;
  instance_steps: InstanceStep[];
  actions: LogEntry[];
  workflow_steps: WorkflowStep[];
}

export interface TaskList { data: Task[]; total: number }

/** A page of the signed-in reviewer's tasks (workflow:participate), or of every reviewer's (`all`, admins), oldest
 * first, with the count of them all. */
export function tasksQuery(all: boolean, page: number, limit: number) {
  return queryOptions({
    queryKey: ['tasks', all ? 'all' : 'mine', page, limit],
    queryFn: async ({ signal }): Promise<TaskList> => {
      const res = await requestList<Task>(all ? '/workflow-tasks/all' : '/workflow-tasks', { limit, page }, signal);
      return { data: res.data, total: res.meta.total_count ?? res.data.length };
    },
    staleTime: 0,
    refetchInterval: 60_000,
  });
}

export function instanceQuery(id: string) {
  return queryOptions({
    queryKey: ['tasks', 'instance', id],
    queryFn: ({ signal }) => request<Instance>('GET', `/workflow-instances/${encodeURIComponent(id)}`, { signal }),
    staleTime: 0,
    retry: (n, err) => n < 2 && !(err instanceof ApiError && err.status >= 400 && err.status < 500),
  });
}

const stepPath = (instance: string, step: string, action: TaskAction) =>
  `/workflow-instances/${encodeURIComponent(instance)}/steps/${encodeURIComponent(step)}/${action}`;

export interface DecisionResult { id: string; instance_id: string; step_id: string; status: StepStatus; instance_status: InstanceStatus }

export function decide(instance: string, step: string, action: TaskAction, body: { comment?: string; to_user?: string }): Promise<DecisionResult> {
  return request<DecisionResult>('POST', stepPath(instance, step, action), { body });
}

export function cancelInstance(instance: string, comment: string): Promise<unknown> {
  return request('POST', `/workflow-instances/${encodeURIComponent(instance)}/cancel`, { body: comment.trim() ? { comment } : {} });
}

/** After any decision: the inbox, the counts and the open instance are read again. */
export function refreshTasks(client: QueryClient): Promise<void> {
  return client.invalidateQueries({ queryKey: ['tasks'] });
}

/** The server's refusal in plain words: its own sentence when it says why (not an assignee, the step no longer
 * active), without the "Invalid payload." prefix written for developers. */
export function refusal(err: unknown): string {
  if (err instanceof ApiError && (err.code === 'INVALID_PAYLOAD' || err.code === 'FORBIDDEN' || err.code === 'NOT_FOUND')) {
    const own = err.message.replace(/^Invalid payload\.\s*/, '');
    if (err.code === 'FORBIDDEN' && /^You don't have permission/.test(own)) return messageOf(err);
    if (/^"to_user" is the caller/.test(own)) return 'You cannot delegate a task to yourself.';
    return own.replace(/"to_user"/g, 'This person').replace(/"comment"/g, 'The comment');
  }
  return messageOf(err);
}

export const STEP_STATUS_LABELS: Record<StepStatus, string> = {
  pending: 'Waiting', active: 'In review', approved: 'Approved', rejected: 'Rejected', skipped: 'Skipped', timed_out: 'Timed out', cancelled: 'Cancelled',
};

export const INSTANCE_STATUS_LABELS: Record<InstanceStatus, string> = {
  running: 'In review', approved: 'Approved', rejected: 'Rejected', cancelled: 'Cancelled',
};

export const MODE_TEXT: Record<WorkflowStep['approval_mode'], string> = {
  any: 'one approval decides',
  all: 'every assignee must approve',
  majority: 'more than half must approve',
};

export const TIMEOUT_TEXT: Record<NonNullable<WorkflowStep['timeout_action']>, string> = {
  'auto-approve': 'then it is approved automatically',
  'auto-reject': 'then it is rejected automatically',
  escalate: 'then it goes to someone else',
  notify: 'then the reviewers are reminded',
};
