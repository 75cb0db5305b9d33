/** The selected step's form: key, name and type; assignees (a role, a user, or the user a field of the item holds)
 * and how many must approve; the timeout and what happens then; a condition step's condition (the filter builder
 * over the workflow's collection); a notification's words; an action's settings. Only what the type uses is shown
 * and sent. Saved with PATCH; the server's field errors appear on their field and the rest under the form; the
 * draft is kept on a failure and while another step is selected. Read-only when the graph is frozen or the caller
 * may only look. */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { FilterBuilder } from '../../content/list/FilterBuilder.tsx';
import type { FilterField } from '../../content/list/model.ts';
import type { Field } from '../../content/schema.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import {
  ACTION_LABELS, ACTION_TYPES, APPROVAL_MODES, MODE_LABELS, STEP_TYPES, TIMEOUT_ACTIONS, TIMEOUT_LABELS, TYPE_LABELS, TYPE_NOTES,
  invalidateLists, plainError, refreshWorkflow, plainMessage, workflowKey,
  type Person, type RoleOption, type Step, type Workflow,
} from './data.ts';
import { shortProblem } from './Diagram.tsx';
import { FieldSelect, PersonPicker, RoleSelect, TemplatePicker } from './Pickers.tsx';
import { draftOf, fieldValue, isDirty, payloadOf, takesAssignees, type StepDraft } from './step-draft.ts';

type ErrorKey = 'key' | 'name' | 'type' | 'assign' | 'mode' | 'timeoutMinutes' | 'timeoutAction' | 'escalate' | 'condition'
  | 'notification' | 'actionType' | 'template' | 'updateField' | 'updateValue';

/** Where the server's `extensions.field` lands in this form. */
const SERVER_FIELDS: Record<string, ErrorKey> = {
  key: 'key', name: 'name', type: 'type', assign_type: 'assign', assign_value: 'assign', approval_mode: 'mode',
  timeout_minutes: 'timeoutMinutes', timeout_action: 'timeoutAction', action_type: 'actionType', 'options.condition': 'condition',
};

export interface StepPanelProps {
  workflow: Workflow;
  step: Step;
  readOnly: boolean;
  /** The draft kept from an earlier visit of this step. */
  initial: StepDraft | undefined;
  remember(id: string, draft: StepDraft | null): void;
  problems: string[];
  roles: { data?: RoleOption[]; error: unknown };
  people: Map<string, Person> | undefined;
  /** The collection's stored fields, in form order. */
  fields: Field[];
  userFields: Set<string>;
  filterFields: FilterField[];
  collectionLabel: string;
  onDeleted(id: string): void;
}

export function StepPanel(props: StepPanelProps) {
  const { workflow, step, readOnly, fields } = props;
  const client = useQueryClient();
  const [draft, setDraftState] = useState<StepDraft>(() => props.initial ?? draftOf(step));
  const [errors, setErrors] = useState<Partial<Record<ErrorKey, string>>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const headingId = useId();
  const dirty = isDirty(draft, step, fields);
  const remember = useRef(props.remember);
  remember.current = props.remember;

  // The page keeps the draft while another step is selected (and marks the step as edited).
  useEffect(() => { remember.current(step.id, dirty ? draft : null); }, [draft, dirty, step.id]);

  const set = (patch: Partial<StepDraft>): void => {
    setDraftState((d) => ({ ...d, ...patch }));
    setSaved(false);
    const cleared = Object.keys(patch).map((k) => FORM_ERRORS[k as keyof StepDraft]).filter(Boolean) as ErrorKey[];
    if (cleared.length) setErrors((e) => { const next = { ...e }; for (const k of cleared) delete next[k]; return next; });
  };

  async function save(): Promise<void> {
    if (busy || readOnly) return;
    const local: Partial<Record<ErrorKey, string>> = {};
    if (!draft.key.trim()) local.key = 'Give the step a key.';
    else if (!/^[A-Za-z0-9_-]+$/.test(draft.key.trim())) local.key = 'Use letters, digits, _ and - only.';
    if (takesAssignees(draft) && draft.assignType && !draft.assignValue) local.assign = draft.assignType === 'dynamic' ? 'Choose the field.' : `Choose the ${draft.assignType}.`;
    if (draft.type === 'action' && !draft.actionType) local.actionType = 'Choose what the step does.';
    if (draft.type === 'action' && draft.actionType === 'update_field' && !draft.updateField) local.updateField = 'Choose the field to set.';
    if (draft.type === 'approval' && draft.timeoutAction === 'escalate' && draft.escalateKind !== 'admins' && !draft.escalateValue) local.escalate = `Choose the ${draft.escalateKind}.`;
    const { body, errors: shape } = payloadOf(draft, step, fields);
    Object.assign(local, shape);
    setErrors(local);
    setError(null);
    if (Object.keys(local).length) return;
    setBusy(true);
    try {
      const row = await request<Step>('PATCH', `/workflows/${encodeURIComponent(workflow.id)}/steps/${encodeURIComponent(step.id)}`, { body });
      client.setQueryData<Workflow>(workflowKey(workflow.id), (w) => w && { ...w, steps: w.steps.map((s) => (s.id === row.id ? row : s)) });
      setDraftState(draftOf(row));
      setSaved(true);
      refreshWorkflow(client, workflow.id);
    } catch (err) {
      const field = err instanceof ApiError ? err.items[0]?.field : undefined;
      const key = field ? SERVER_FIELDS[field] ?? serverFieldFor(field, draft) : undefined;
      if (key && err instanceof ApiError) setErrors({ [key]: plainMessage(err.message) });
      else setError(plainError(err));
    } finally {
      setBusy(false);
    }
  }

  const discard = (): void => {
    setDraftState(draftOf(step));
    setErrors({});
    setError(null);
  };

  const ids = useIds();
  const type = draft.type;
  const assignees = takesAssignees(draft);
  const collectionFields = fields.filter((f) => f.type !== 'alias');
  const updatable = collectionFields.filter((f) => !f.schema?.is_primary_key);
  const updateField = fields.find((f) => f.field === draft.updateField);

  return (
    <section className="wf-panel" aria-labelledby={headingId}>
      <header className="wf-panel-head">
        <h2 id={headingId}>{TYPE_LABELS[step.type]} step: {step.name}</h2>
        {dirty && <span className="badge wf-badge-edited">Unsaved changes</span>}
      </header>
      {props.problems.length > 0 && (
        <div className="notice notice-error wf-step-problems" role="note" aria-label="Problems of this step">
          <ul>{props.problems.map((p) => <li key={p}>{shortProblem(p)}</li>)}</ul>
        </div>
      )}
      <form className="wf-form" noValidate onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <fieldset disabled={readOnly} className="wf-fieldset">
          <legend className="visually-hidden">Step settings</legend>
          <TextInput id={ids.name} label="Name" value={draft.name} onChange={(v) => set({ name: v })} error={errors.name} maxLength={255} />
          <TextInput id={ids.key} label="Key" value={draft.key} onChange={(v) => set({ key: v })} error={errors.key} maxLength={64} mono
            note="Names the step in the API and in messages: letters, digits, _ and -, unique in the workflow." />
          <div className="field">
            <label htmlFor={ids.type}>Type</label>
            <select id={ids.type} value={type} onChange={(e) => set({ type: e.target.value as StepDraft['type'] })} aria-describedby={`${ids.type}-note`}
              aria-invalid={Boolean(errors.type) || undefined}>
              {STEP_TYPES.map((t) => <option key={t} value={t}>{TYPE_LABELS[t]}</option>)}
            </select>
            <span className="field-note" id={`${ids.type}-note`}>{TYPE_NOTES[type]}</span>
            {errors.type && <span className="field-error">{errors.type}</span>}
          </div>

          {type === 'action' && (
            <Group title="What it does">
              <div className="field">
                <label htmlFor={ids.action}>Action</label>
                <select id={ids.action} value={draft.actionType} onChange={(e) => set({ actionType: e.target.value as StepDraft['actionType'] })}
                  aria-invalid={Boolean(errors.actionType) || undefined}>
                  <option value="">Choose an action…</option>
                  {ACTION_TYPES.map((a) => <option key={a} value={a}>{ACTION_LABELS[a]}</option>)}
                </select>
                {errors.actionType && <span className="field-error">{errors.actionType}</span>}
              </div>
              {draft.actionType === 'promote_version' && (
                <p className="field-note">Applies the draft's changes to the item at this step, instead of when the workflow ends approved.</p>
              )}
              {draft.actionType === 'send_notification' && (
                <>
                  <TemplatePicker value={draft.templateId} onChange={(v) => set({ templateId: v })} error={errors.template} />
                  <p className="field-note">
                    {draft.templateId ? 'The template is sent through its channels, with the item\'s values.' : 'Without a template: an in-app notification with this subject and message.'}
                  </p>
                  {!draft.templateId && <MessageInputs draft={draft} set={set} ids={ids} error={errors.notification} />}
                </>
              )}
              {draft.actionType === 'update_field' && (
                <>
                  <FieldSelect label="Field to set" value={draft.updateField} onChange={(v) => set({ updateField: v, updateValue: '', updateNull: false })}
                    fields={updatable} error={errors.updateField} />
                  {draft.updateField && (
                    <ValueInput id={ids.value} field={updateField} draft={draft} set={set} error={errors.updateValue} />
                  )}
                </>
              )}
            </Group>
          )}

          {assignees && (
            <Group title={type === 'approval' ? 'Assignees' : 'Recipients'}>
              <div className="field">
                <label htmlFor={ids.assign}>{type === 'approval' ? 'Assigned to' : 'Sent to'}</label>
                <select id={ids.assign} value={draft.assignType} onChange={(e) => set({ assignType: e.target.value as StepDraft['assignType'], assignValue: '' })}
                  aria-describedby={`${ids.assign}-note`}>
                  <option value="">{type === 'action' ? 'The person who submitted the draft' : 'Nobody yet'}</option>
                  <option value="role">Everyone with a role</option>
                  <option value="user">One user</option>
                  <option value="dynamic">The user named in a field of the item</option>
                </select>
                <span className="field-note" id={`${ids.assign}-note`}>
                  {draft.assignType === 'dynamic' ? 'The field is read from the item as the draft would make it.'
                    : type === 'approval' && !draft.assignType ? 'An approval step needs assignees before the workflow can be activated.'
                      : type === 'notification' && !draft.assignType ? 'A notification step needs recipients before the workflow can be activated.' : ' '}
                </span>
              </div>
              {draft.assignType === 'role' && (
                <RoleSelect label="Role" value={draft.assignValue} onChange={(v) => set({ assignValue: v })} roles={props.roles} error={errors.assign} />
              )}
              {draft.assignType === 'user' && (
                <PersonPicker label="User" value={draft.assignValue} onChange={(v) => set({ assignValue: v })} known={props.people} error={errors.assign} />
              )}
              {draft.assignType === 'dynamic' && (
                <FieldSelect label="Field holding the user" value={draft.assignValue} onChange={(v) => set({ assignValue: v })}
                  fields={collectionFields} userFields={props.userFields} error={errors.assign} />
              )}
              {type === 'approval' && (
                <div className="field">
                  <label htmlFor={ids.mode}>Approved when</label>
                  <select id={ids.mode} value={draft.mode} onChange={(e) => set({ mode: e.target.value as StepDraft['mode'] })} aria-invalid={Boolean(errors.mode) || undefined}>
                    {APPROVAL_MODES.map((m) => <option key={m} value={m}>{MODE_LABELS[m]} approve{m === 'any' ? 's' : ''}</option>)}
                  </select>
                  {errors.mode && <span className="field-error">{errors.mode}</span>}
                </div>
              )}
            </Group>
          )}

          {type === 'notification' && (
            <Group title="Message">
              <MessageInputs draft={draft} set={set} ids={ids} error={errors.notification} />
            </Group>
          )}

          {type === 'approval' && (
            <Group title="Timeout">
              <div className="field">
                <label htmlFor={ids.timeoutAction}>When nobody decides in time</label>
                <select id={ids.timeoutAction} value={draft.timeoutAction}
                  onChange={(e) => set({ timeoutAction: e.target.value as StepDraft['timeoutAction'], timeoutMinutes: draft.timeoutMinutes || (e.target.value ? '1440' : '') })}
                  aria-invalid={Boolean(errors.timeoutAction) || undefined}>
                  <option value="">Wait as long as it takes (no timeout)</option>
                  {TIMEOUT_ACTIONS.map((a) => <option key={a} value={a}>{TIMEOUT_LABELS[a]}</option>)}
                </select>
                {errors.timeoutAction && <span className="field-error">{errors.timeoutAction}</span>}
              </div>
              {draft.timeoutAction && (
                <div className="field">
                  <label htmlFor={ids.minutes}>Timeout in minutes</label>
                  <input id={ids.minutes} type="number" min={1} max={525600} step={1} inputMode="numeric" value={draft.timeoutMinutes}
                    onChange={(e) => set({ timeoutMinutes: e.target.value })} aria-invalid={Boolean(errors.timeoutMinutes) || undefined}
                    aria-describedby={`${ids.minutes}-note`} className="wf-minutes" />
                  <span className="field-note" id={`${ids.minutes}-note`}>{duration(draft.timeoutMinutes)}</span>
                  {errors.timeoutMinutes && <span className="field-error">{errors.timeoutMinutes}</span>}
                </div>
              )}
              {draft.timeoutAction === 'escalate' && (
                <>
                  <div className="field">
                    <label htmlFor={ids.escalate}>Escalate to</label>
                    <select id={ids.escalate} value={draft.escalateKind} onChange={(e) => set({ escalateKind: e.target.value as StepDraft['escalateKind'], escalateValue: '' })}>
                      <option value="admins">The administrators</option>
                      <option value="role">Everyone with a role</option>
                      <option value="user">One user</option>
                    </select>
                  </div>
                  {draft.escalateKind === 'role' && (
                    <RoleSelect label="Escalation role" value={draft.escalateValue} onChange={(v) => set({ escalateValue: v })} roles={props.roles} error={errors.escalate} />
                  )}
                  {draft.escalateKind === 'user' && (
                    <PersonPicker label="Escalation user" value={draft.escalateValue} onChange={(v) => set({ escalateValue: v })} known={props.people} error={errors.escalate} />
                  )}
                </>
              )}
            </Group>
          )}

          {type === 'condition' && (
            <Group title="Condition">
              <FilterBuilder root={draft.condition} fields={props.filterFields} onChange={(next) => set({ condition: next })}
                collectionLabel={props.collectionLabel} matchLabel="The condition holds when the item matches"
                emptyText="No conditions yet. Add one: a condition step cannot run without it." />
              <p className="field-note">Checked on the item as the draft would make it. The step then follows its “condition” transition, or “always” when the condition does not hold.</p>
              {errors.condition && <span className="field-error">{errors.condition}</span>}
            </Group>
          )}
        </fieldset>
        {!readOnly && (
          <div className="wf-danger">
            <button type="button" className="btn btn-small btn-ghost wf-delete" onClick={() => setDeleting(true)}>Delete step</button>
            <span className="field-note">Its transitions go with it.</span>
          </div>
        )}

        {!readOnly && (
          <div className="wf-panel-foot">
            {error !== null && <ErrorNotice error={error} title="The step was not saved." />}
            {Object.keys(errors).length > 0 && error === null && <p className="field-error" role="alert">The step was not saved: see the fields marked above.</p>}
            <div className="wf-buttons">
              <button type="submit" className="btn btn-primary" disabled={busy || !dirty}>{busy ? 'Saving…' : 'Save step'}</button>
              <button type="button" className="btn" onClick={discard} disabled={busy || !dirty}>Discard changes</button>
              <span className="wf-saved" role="status">{saved && !dirty ? 'Saved' : ''}</span>
            </div>
          </div>
        )}
      </form>
      {deleting && (
        <ConfirmDialog title={`Delete the step “${step.name}”?`} confirmLabel="Delete step" onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await request('DELETE', `/workflows/${encodeURIComponent(workflow.id)}/steps/${encodeURIComponent(step.id)}`).catch((err: unknown) => { throw plainError(err); });
            client.setQueryData<Workflow>(workflowKey(workflow.id), (w) => w && {
              ...w,
              steps: w.steps.filter((s) => s.id !== step.id),
              transitions: w.transitions.filter((t) => t.from_step_id !== step.id && t.to_step_id !== step.id),
            });
            refreshWorkflow(client, workflow.id);
            setDeleting(false);
            props.onDeleted(step.id);
          }}>
          <p>{deleteConsequence(workflow, step)}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** Which error a draft field's edit clears. */
const FORM_ERRORS: Partial<Record<keyof StepDraft, ErrorKey>> = {
  key: 'key', name: 'name', type: 'type', assignType: 'assign', assignValue: 'assign', mode: 'mode', timeoutMinutes: 'timeoutMinutes',
  timeoutAction: 'timeoutAction', escalateKind: 'escalate', escalateValue: 'escalate', condition: 'condition', subject: 'notification',
  message: 'notification', actionType: 'actionType', templateId: 'template', updateField: 'updateField', updateValue: 'updateValue', updateNull: 'updateValue',
};

/** The server names `options` or `action_config` for problems inside them: the input they come from. */
function serverFieldFor(field: string, draft: StepDraft): ErrorKey | undefined {
  if (field === 'options') return draft.timeoutAction === 'escalate' ? 'escalate' : draft.type === 'condition' ? 'condition' : 'notification';
  if (field === 'action_config') return draft.actionType === 'send_notification' ? 'template' : draft.actionType === 'update_field' ? 'updateField' : 'actionType';
  return undefined;
}

function deleteConsequence(workflow: Workflow, step: Step): string {
  const n = workflow.transitions.filter((t) => t.from_step_id === step.id || t.to_step_id === step.id).length;
  const also = n === 0 ? '' : n === 1 ? ' Its transition is deleted with it.' : ` Its ${n} transitions are deleted with it.`;
  return `The step “${step.name}” (${step.key}) leaves the workflow.${also} Finished reviews that passed through it lose their record of it.`;
}

function useIds() {
  const base = useId();
  return {
    name: `${base}-name`, key: `${base}-key`, type: `${base}-type`, action: `${base}-action`, assign: `${base}-assign`, mode: `${base}-mode`,
    timeoutAction: `${base}-timeout`, minutes: `${base}-minutes`, escalate: `${base}-escalate`, subject: `${base}-subject`,
    message: `${base}-message`, value: `${base}-value`,
  };
}

function Group({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="wf-group">
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

export function TextInput({ id, label, value, onChange, error, note, maxLength, mono }: {
  id: string; label: string; value: string; onChange(v: string): void; error?: string; note?: string; maxLength?: number; mono?: boolean;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(e) => onChange(e.target.value)} maxLength={maxLength} className={mono ? 'mono' : undefined}
        aria-invalid={Boolean(error) || undefined} aria-describedby={[note ? `${id}-note` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined}
        autoComplete="off" spellCheck={false} />
      {note && <span className="field-note" id={`${id}-note`}>{note}</span>}
      {error && <span className="field-error" id={`${id}-error`}>{error}</span>}
    </div>
  );
}

function MessageInputs({ draft, set, ids, error }: { draft: StepDraft; set(p: Partial<StepDraft>): void; ids: ReturnType<typeof useIds>; error?: string }) {
  return (
    <>
      <TextInput id={ids.subject} label="Subject" value={draft.subject} onChange={(v) => set({ subject: v })} maxLength={255}
        note="Left empty, the step's name is the subject." />
      <div className="field">
        <label htmlFor={ids.message}>Message</label>
        <textarea id={ids.message} value={draft.message} onChange={(e) => set({ message: e.target.value })} rows={3}
          aria-invalid={Boolean(error) || undefined} />
        {error && <span className="field-error">{error}</span>}
      </div>
    </>
  );
}

function ValueInput({ id, field, draft, set, error }: { id: string; field: Field | undefined; draft: StepDraft; set(p: Partial<StepDraft>): void; error?: string }) {
  const type = field?.type ?? 'string';
  const preview = fieldValue(draft, field);
  const describedBy = error ? `${id}-error` : undefined;
  let input: ReactNode;
  if (type === 'boolean') {
    input = (
      <select id={id} value={draft.updateValue} onChange={(e) => set({ updateValue: e.target.value })} disabled={draft.updateNull}
        aria-invalid={Boolean(error) || undefined} aria-describedby={describedBy}>
        <option value="">Choose…</option>
        <option value="true">Yes (true)</option>
        <option value="false">No (false)</option>
      </select>
    );
  } else if (type === 'json' || type === 'text') {
    input = <textarea id={id} value={draft.updateValue} onChange={(e) => set({ updateValue: e.target.value })} disabled={draft.updateNull} rows={3}
      className={type === 'json' ? 'code' : undefined} aria-invalid={Boolean(error) || undefined} aria-describedby={describedBy} />;
  } else {
    const numeric = ['integer', 'bigInteger', 'float', 'decimal'].includes(type);
    input = <input id={id} type={numeric ? 'number' : 'text'} step={numeric ? 'any' : undefined} value={draft.updateValue}
      onChange={(e) => set({ updateValue: e.target.value })} disabled={draft.updateNull} aria-invalid={Boolean(error) || undefined} aria-describedby={describedBy} />;
  }
  return (
    <div className="field">
      <label htmlFor={id}>New value</label>
      {input}
      <label className="wf-check">
        <input type="checkbox" checked={draft.updateNull} onChange={(e) => set({ updateNull: e.target.checked })} />
        <span>Set it to empty (null)</span>
      </label>
      {error ? <span className="field-error" id={`${id}-error`}>{error}</span>
        : !draft.updateNull && type === 'json' && !preview.error ? <span className="field-note">Stored as JSON.</span> : null}
    </div>
  );
}

/** "1440" -> "1 day"; a few words for a number of minutes. */
export function duration(text: string): string {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) return 'A whole number of minutes.';
  const parts: string[] = [];
  const days = Math.floor(n / 1440);
  const hours = Math.floor((n % 1440) / 60);
  const minutes = n % 60;
  if (days) parts.push(`${days} day${days > 1 ? 's' : ''}`);
  if (hours) parts.push(`${hours} hour${hours > 1 ? 's' : ''}`);
  if (minutes) parts.push(`${minutes} minute${minutes > 1 ? 's' : ''}`);
  return parts.join(' ');
}
