/** What the workflow screens read and write: workflows with their steps and transitions (GET /workflows/{id}),
 * the list (GET /workflows, paged and searched on the server), the people, roles and notification templates the
 * pickers offer, and the problems of a refused activation (`extensions.problems`). */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { request, requestList } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';

export const STEP_TYPES = ['start', 'approval', 'condition', 'notification', 'action', 'end'] as const;
export const ASSIGN_TYPES = ['role', 'user', 'dynamic'] as const;
export const APPROVAL_MODES = ['any', 'all', 'majority'] as const;
export const ACTION_TYPES = ['promote_version', 'send_notification', 'update_field'] as const;
export const TIMEOUT_ACTIONS = ['auto-approve', 'auto-reject', 'escalate', 'notify'] as const;
export const TRIGGERS = ['approve', 'reject', 'always', 'condition'] as const;

export type StepType = typeof STEP_TYPES[number];
export type AssignType = typeof ASSIGN_TYPES[number];
export type ApprovalMode = typeof APPROVAL_MODES[number];
export type ActionType = typeof ACTION_TYPES[number];
export type TimeoutAction = typeof TIMEOUT_ACTIONS[number];
export type Trigger = typeof TRIGGERS[number];

export interface Step {
  id: string;
  workflow_id: string;
  key: string;
  name: string;
  type: StepType;
  assign_type: AssignType | null;
  assign_value: string | null;
  approval_mode: ApprovalMode;
  sort_order: number;
  action_type: ActionType | null;
  action_config: Record<string, unknown> | null;
  options: Record<string, unknown> | null;
  timeout_minutes: number | null;
  timeout_action: TimeoutAction | null;
}

export interface Transition {
  id: string;
  workflow_id: string;
  from_step_id: string;
  to_step_id: string;
  trigger: Trigger;
  condition: Record<string, unknown> | null;
}

export interface WorkflowRecord {
  id: string;
  name: string;
  description: string | null;
  collection: string;
  trigger_event: string;
  trigger_filter: Record<string, unknown> | null;
  active: boolean;
  date_created: string;
}

/** With its graph, and what keeps the graph from being activated (the server's checks, as at activation). */
export interface Workflow extends WorkflowRecord { steps: Step[]; transitions: Transition[]; problems: Problem[] }
export interface WorkflowListRow extends WorkflowRecord { step_count: number }

export const TYPE_LABELS: Record<StepType, string> = {
  start: 'Start', approval: 'Approval', condition: 'Condition', notification: 'Notification', action: 'Action', end: 'End',
};
export const TYPE_NOTES: Record<StepType, string> = {
  start: 'Where an instance begins; it moves on at once.',
  approval: 'Waits for its assignees to approve or reject.',
  condition: 'Goes one way when its condition holds, another when it does not.',
  notification: 'Sends an in-app notification to its recipients and moves on.',
  action: 'Does something to the item or sends a message, then moves on.',
  end: 'Where an instance ends (approved, or rejected after a rejection).',
};
export const TRIGGER_LABELS: Record<Trigger, string> = { approve: 'approve', reject: 'reject', always: 'always', condition: 'condition' };
export const TRIGGER_NOTES: Record<Trigger, string> = {
  approve: 'when approved',
  reject: 'when rejected',
  always: 'otherwise',
  condition: 'when the condition holds',
};
export const ACTION_LABELS: Record<ActionType, string> = {
  promote_version: 'Publish the draft (promote the version)',
  send_notification: 'Send a notification',
  update_field: 'Set a field of the item',
};
export const TIMEOUT_LABELS: Record<TimeoutAction, string> = {
  'auto-approve': 'Approve automatically',
  'auto-reject': 'Reject automatically',
  escalate: 'Escalate to someone else',
  notify: 'Remind the assignees',
};
export const MODE_LABELS: Record<ApprovalMode, string> = {
  any: 'Any one of them', all: 'All of them', majority: 'A majority (more than half)',
};

/** The triggers a transition may have when it leaves a step of this type (the server's rule). */
export function triggersFor(type: StepType): Trigger[] {
  if (type === 'end') return [];
  if (type === 'approval') return ['approve', 'reject', 'always'];
  if (type === 'condition') return ['condition', 'always'];
  return ['always'];
}

export const workflowKey = (id: string) => ['workflows', 'one', id] as const;

export const workflowQuery = (id: string) => queryOptions({
  queryKey: workflowKey(id),
  queryFn: ({ signal }) => request<Workflow>('GET', `/workflows/${encodeURIComponent(id)}`, { signal }),
});

export interface WorkflowListQuery { search?: string; limit: number; page: number }

export const workflowListQuery = (q: WorkflowListQuery) => queryOptions({
  queryKey: ['workflows', 'list', q],
  queryFn: ({ signal }) => requestList<WorkflowListRow>('/workflows', { ...q, meta: 'filter_count,total_count' }, signal),
});

/** After a change of the graph: the cache already holds the change; the workflow is read again for its problems. */
export function refreshWorkflow(client: QueryClient, id: string): void {
  void client.invalidateQueries({ queryKey: workflowKey(id) });
  void invalidateLists(client);
}

/** Every cached list (its counts and statuses change with any edit). */
export function invalidateLists(client: QueryClient): Promise<void> {
  return client.invalidateQueries({ queryKey: ['workflows', 'list'] });
}

export interface RoleOption { id: string; name: string }

/** The roles the caller may read, by name (a short list: the picker is a select). */
export const rolesQuery = queryOptions({
  queryKey: ['workflows', 'roles'],
  queryFn: ({ signal }) => request<RoleOption[]>('GET', '/roles', { query: { fields: ['id', 'name'], sort: ['name', 'id'], limit: 200 }, signal }),
  staleTime: 60_000,
});

export interface Person { id: string; first_name: string | null; last_name: string | null; email: string | null }

export const personName = (p: Person): string => [p.first_name, p.last_name].filter(Boolean).join(' ') || p.email || p.id;

const PERSON_FIELDS = ['id', 'first_name', 'last_name', 'email'];

/** People met in searches this session, by id: a person picked before their step is saved is still named. */
export const seenPeople = new Map<string, Person>();

/** Users whose name or email matches, a few at a time (the server searches). */
export async function searchPeople(term: string, signal?: AbortSignal): Promise<Person[]> {
  const found = await request<Person[]>('GET', '/users', { query: { fields: PERSON_FIELDS, search: term || undefined, sort: ['first_name', 'last_name', 'email'], limit: 8 }, signal });
  for (const p of found) seenPeople.set(p.id, p);
  return found;
}

/** The people a workflow names (assignees, escalations, recipients), in one request. */
export const peopleQuery = (ids: string[]) => queryOptions({
  queryKey: ['workflows', 'people', ids],
  queryFn: async ({ signal }) => {
    const rows = await request<Person[]>('GET', '/users', { query: { fields: PERSON_FIELDS, filter: { id: { _in: ids } }, limit: ids.length }, signal });
    return new Map(rows.map((p) => [p.id, p]));
  },
  enabled: ids.length > 0,
  staleTime: 60_000,
});

export interface TemplateOption { id: string; name: string | null; status: string }

export async function searchTemplates(term: string, signal?: AbortSignal): Promise<TemplateOption[]> {
  return request<TemplateOption[]>('GET', '/notify/templates', { query: { fields: ['id', 'name', 'status'], search: term || undefined, sort: ['name', 'id'], limit: 8 }, signal });
}

export const templateQuery = (id: string) => queryOptions({
  queryKey: ['workflows', 'template', id],
  queryFn: ({ signal }) => request<TemplateOption>('GET', `/notify/templates/${encodeURIComponent(id)}`, { query: { fields: ['id', 'name', 'status'] }, signal }),
  staleTime: 60_000,
  retry: false,
});

/** One reason the server gave for refusing to activate; `step` is a step's key. */
export interface Problem { message: string; step?: string }

/** The problems of a refused activation, or null when the error is something else. */
export function problemsOf(err: unknown): Problem[] | null {
  if (!(err instanceof ApiError)) return null;
  const raw = err.items[0]?.extensions?.problems;
  if (!Array.isArray(raw)) return null;
  return raw.filter((p): p is Problem => typeof p === 'object' && p !== null && typeof (p as Problem).message === 'string')
    .map((p) => ({ message: p.message.replace(/^Invalid payload\.\s*/, ''), ...(typeof p.step === 'string' ? { step: p.step } : {}) }));
}

/** The server's message without its "Invalid payload." prefix, which says nothing to a person. */
export function plainMessage(message: string): string {
  return message.replace(/^Invalid payload\.\s*/, '');
}

/** The error with the server's messages in plain words (for ErrorNotice). */
export function plainError(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  return new ApiError(err.status, err.items.map((i) => ({ ...i, message: plainMessage(i.message) })));
}

/** The user ids a workflow's steps name (for their names, fetched together). */
export function peopleIn(steps: Step[]): string[] {
  const ids = new Set<string>();
  for (const s of steps) {
    if (s.assign_type === 'user' && s.assign_value) ids.add(s.assign_value);
    const escalate = s.options?.escalate_to as { user?: unknown } | undefined;
    if (typeof escalate?.user === 'string') ids.add(escalate.user);
  }
  return [...ids].sort();
}
