/** Rows of the workflow tables (migrations 0001 and 0004) and the vocabularies their columns accept. */

export const STEP_TYPES = ['start', 'approval', 'condition', 'notification', 'action', 'end'] as const;
export const ASSIGN_TYPES = ['role', 'user', 'dynamic'] as const;
export const APPROVAL_MODES = ['any', 'all', 'majority'] as const;
export const ACTION_TYPES = ['promote_version', 'send_notification', 'update_field'] as const;
export const TIMEOUT_ACTIONS = ['auto-approve', 'auto-reject', 'escalate', 'notify'] as const;
export const TRANSITION_TRIGGERS = ['approve', 'reject', 'always', 'condition'] as const;
/** The events a workflow can be bound to (SPEC.md > Events 1). */
export const TRIGGER_EVENTS = ['versions.submit'] as const;
/** What a reviewer can do on an active step (SPEC.md > Workflow, GET /workflow-tasks). */
export const TASK_ACTIONS = ['approve', 'reject', 'delegate', 'comment'] as const;

export type StepType = typeof STEP_TYPES[number];
export type TransitionTrigger = typeof TRANSITION_TRIGGERS[number];

export interface WorkflowRow {
  id: string;
  name: string;
  description: string | null;
  collection: string;
  trigger_event: string;
  trigger_filter: Record<string, unknown> | null;
  active: boolean;
  date_created: string;
  user_created: string | null;
}

export interface StepRow {
  id: string;
  workflow_id: string;
  key: string;
  name: string;
  type: StepType;
  assign_type: 'role' | 'user' | 'dynamic' | null;
  assign_value: string | null;
  approval_mode: 'any' | 'all' | 'majority';
  sort_order: number;
  action_type: 'promote_version' | 'send_notification' | 'update_field' | null;
  action_config: Record<string, unknown> | null;
  options: Record<string, unknown> | null;
  timeout_minutes: number | null;
  timeout_action: 'auto-approve' | 'auto-reject' | 'escalate' | 'notify' | null;
}

export interface TransitionRow {
  id: string;
  workflow_id: string;
  from_step_id: string;
  to_step_id: string;
  trigger: TransitionTrigger;
  condition: Record<string, unknown> | null;
}

export interface InstanceRow {
  id: string;
  workflow_id: string;
  collection: string;
  item: string | null;
  version_id: string | null;
  status: 'running' | 'approved' | 'rejected' | 'cancelled';
  current_step_id: string | null;
  started_by: string | null;
  started_at: string;
  completed_at: string | null;
}

export interface Approval { user: string | null; timestamp: string; system?: boolean }

export interface InstanceStepRow {
  id: string;
  instance_id: string;
  step_id: string;
  status: 'pending' | 'active' | 'approved' | 'rejected' | 'skipped' | 'timed_out' | 'cancelled';
  assignees: string[] | null;
  activated_at: string | null;
  timeout_at: string | null;
  completed_at: string | null;
  approvals: Approval[];
  result: string | null;
  timeout_fired_at: string | null;
}

export type ActionKind = 'approve' | 'reject' | 'delegate' | 'comment' | 'cancel' | 'escalate';
