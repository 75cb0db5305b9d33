/** A step as its form edits it (every input's text, the condition as a filter tree), and back to the body of
 * PATCH /workflows/{id}/steps/{step}: only what the step's type uses is sent, the rest cleared (the server refuses,
 * say, an action type on an approval step), and option keys the designer does not know are kept. */
import { fromApiFilter, toApiFilter, type GroupNode } from '../../content/list/filter.ts';
import type { Field } from '../../content/schema.ts';
import type { ActionType, ApprovalMode, AssignType, Step, StepType, TimeoutAction } from './data.ts';

export interface StepDraft {
  key: string;
  name: string;
  type: StepType;
  assignType: AssignType | '';
  assignValue: string;
  mode: ApprovalMode;
  timeoutMinutes: string;
  timeoutAction: TimeoutAction | '';
  escalateKind: 'admins' | 'role' | 'user';
  escalateValue: string;
  /** An in-app notification's subject and message (notification steps, and send_notification without a template). */
  subject: string;
  message: string;
  actionType: ActionType | '';
  templateId: string;
  updateField: string;
  updateValue: string;
  updateNull: boolean;
  condition: GroupNode;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function draftOf(step: Step): StepDraft {
  const options = step.options ?? {};
  const config = step.action_config ?? {};
  const escalate = options.escalate_to as { user?: unknown; role?: unknown } | undefined;
  const notifyConfig = step.type === 'action' ? config : options;
  const value = config.value;
  return {
    key: step.key,
    name: step.name,
    type: step.type,
    assignType: step.assign_type ?? '',
    assignValue: step.assign_value ?? '',
    mode: step.approval_mode,
    timeoutMinutes: step.timeout_minutes === null ? '' : String(step.timeout_minutes),
    timeoutAction: step.timeout_action ?? '',
    escalateKind: typeof escalate?.user === 'string' ? 'user' : typeof escalate?.role === 'string' ? 'role' : 'admins',
    escalateValue: str(escalate?.user) || str(escalate?.role),
    subject: str(notifyConfig.subject),
    message: str(notifyConfig.message),
    actionType: step.action_type ?? '',
    templateId: str(config.template_id),
    updateField: str(config.field),
    updateValue: value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value),
    updateNull: step.action_type === 'update_field' && value === null,
    condition: fromApiFilter(options.condition ?? null),
  };
}

/** Whose assignees a step of this type has (start, condition and end steps have none). */
export const HAS_ASSIGNEES: Record<StepType, boolean> = {
  start: false, approval: true, condition: false, notification: true, action: true, end: false,
};

/** Whether the draft's step has people to assign (an action step only when it sends a notification). */
export function takesAssignees(draft: Pick<StepDraft, 'type' | 'actionType'>): boolean {
  return HAS_ASSIGNEES[draft.type] && (draft.type !== 'action' || draft.actionType === 'send_notification');
}

const NUMBER_TYPES = new Set(['integer', 'bigInteger', 'float', 'decimal']);

/** A filter to store (a condition, a trigger filter): as the list's filter, with numbers of number fields as
 * numbers (the server evaluates it in memory against the item, where 2 and "2" differ). Paths through relations
 * keep their text. */
export function storedFilter(tree: GroupNode, fields: Field[]): Record<string, unknown> | null {
  const typeOf = (path: string): string | undefined => fields.find((f) => f.field === path)?.type;
  const filter = toApiFilter(tree, typeOf);
  if (!filter) return null;
  const walk = (node: unknown, path: string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, path));
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => {
      if (k === '_and' || k === '_or') return [k, walk(v, [])];
      if (k.startsWith('_')) {
        const numeric = path.length === 1 && NUMBER_TYPES.has(typeOf(path[0]) ?? '');
        const num = (x: unknown): unknown => (numeric && typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x)) ? Number(x) : x);
        return [k, Array.isArray(v) ? v.map(num) : num(v)];
      }
      return [k, walk(v, [...path, k])];
    }));
  };
  return walk(filter, []) as Record<string, unknown>;
}

/** The value update_field writes, typed for its field; a message when the text does not fit the type. */
export function fieldValue(draft: Pick<StepDraft, 'updateValue' | 'updateNull'>, field: Field | undefined): { value: unknown; error?: string } {
  if (draft.updateNull) return { value: null };
  const text = draft.updateValue;
  const type = field?.type ?? 'string';
  if (type === 'boolean') {
    if (text === 'true' || text === 'false') return { value: text === 'true' };
    return { value: null, error: 'Choose yes or no.' };
  }
  if (NUMBER_TYPES.has(type)) {
    if (text.trim() === '' || !Number.isFinite(Number(text))) return { value: null, error: 'Enter a number.' };
    return { value: Number(text) };
  }
  if (type === 'json') {
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      return { value: null, error: 'Enter valid JSON, such as {"a": 1} or "text".' };
    }
  }
  return { value: text };
}

export interface StepPayload { body: Record<string, unknown>; errors: Partial<Record<'updateValue' | 'timeoutMinutes', string>> }

/** The PATCH body for the draft. `fieldType` gives the type of the collection's fields (for update_field). */
export function payloadOf(draft: StepDraft, step: Step, fields: Field[]): StepPayload {
  const errors: StepPayload['errors'] = {};
  const type = draft.type;
  const body: Record<string, unknown> = { key: draft.key.trim(), name: draft.name.trim() || draft.key.trim(), type };
  const assigns = takesAssignees(draft) && draft.assignType !== '';
  body.assign_type = assigns ? draft.assignType : null;
  body.assign_value = assigns ? draft.assignValue || null : null;
  body.approval_mode = type === 'approval' ? draft.mode : 'any';

  const options: Record<string, unknown> = { ...(step.options ?? {}) };
  delete options.condition;
  delete options.escalate_to;
  delete options.subject;
  delete options.message;
  if (type === 'condition') {
    const condition = storedFilter(draft.condition, fields);
    if (condition) options.condition = condition;
  }
  if (type === 'notification') {
    if (draft.subject.trim()) options.subject = draft.subject.trim();
    if (draft.message.trim()) options.message = draft.message;
  }
  const timeout = type === 'approval' && draft.timeoutAction !== '';
  if (timeout) {
    const minutes = Number(draft.timeoutMinutes);
    if (!Number.isInteger(minutes) || minutes < 1) errors.timeoutMinutes = 'Enter a whole number of minutes (at least 1).';
    body.timeout_minutes = Number.isInteger(minutes) && minutes >= 1 ? minutes : null;
    body.timeout_action = draft.timeoutAction;
    if (draft.timeoutAction === 'escalate' && draft.escalateKind !== 'admins' && draft.escalateValue) {
      options.escalate_to = { [draft.escalateKind]: draft.escalateValue };
    }
  } else {
    body.timeout_minutes = null;
    body.timeout_action = null;
  }
  body.options = Object.keys(options).length ? options : null;

  if (type === 'action' && draft.actionType !== '') {
    body.action_type = draft.actionType;
    const config: Record<string, unknown> = {};
    if (draft.actionType === 'send_notification') {
      const keep = step.action_config?.recipients;
      if (Array.isArray(keep)) config.recipients = keep;
      if (draft.templateId) config.template_id = draft.templateId;
      else {
        if (draft.subject.trim()) config.subject = draft.subject.trim();
        if (draft.message.trim()) config.message = draft.message;
      }
    } else if (draft.actionType === 'update_field') {
      config.field = draft.updateField;
      const { value, error } = fieldValue(draft, fields.find((f) => f.field === draft.updateField));
      if (error && draft.updateField) errors.updateValue = error;
      config.value = value;
    }
    body.action_config = Object.keys(config).length ? config : null;
  } else {
    body.action_type = null;
    body.action_config = null;
  }
  return { body, errors };
}

/** Whether the draft says something other than the saved step. */
export function isDirty(draft: StepDraft, step: Step, fields: Field[]): boolean {
  return JSON.stringify(payloadOf(draft, step, fields).body) !== JSON.stringify(payloadOf(draftOf(step), step, fields).body);
}

/** A key from a name: lower case, words joined by underscores (the server accepts letters, digits, _ and -). */
export function keyFromName(name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64);
}
