/** /review/workflows/{id}: the workflow designer. The steps and transitions as a diagram beside the form of the
 * selected step (or the workflow's settings), the transitions in words under it; add and delete steps and
 * transitions; activate and deactivate. A refused activation shows each problem on the step it names and the rest
 * above the diagram. An active workflow's graph is frozen by the server: it is shown read-only with a Deactivate
 * button; workflow:view without workflow:manage sees everything read-only. The workflow, the roles and the schema
 * are read together; the names of the people it assigns follow in one request. */
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useCapabilities } from '../../app/capabilities.ts';
import { useUnsavedGuard } from '../../content/item/unsaved.tsx';
import { countConditions, fromApiFilter } from '../../content/list/filter.ts';
import { filterFields, type Schema } from '../../content/list/model.ts';
import {
  fieldsOf, titleOf, useAllFields, type Field, useCollections, usePermissions, usePolicyGlobals, useRelations,
} from '../../content/schema.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import {
  ACTION_LABELS, ACTION_TYPES, STEP_TYPES, TYPE_LABELS, TYPE_NOTES,
  plainError, refreshWorkflow, peopleIn, peopleQuery, personName, plainMessage, problemsOf, rolesQuery, workflowKey, workflowQuery,
  type ActionType, type Person, type Problem, type RoleOption, type Step, type StepType, type Workflow, type WorkflowRecord,
} from './data.ts';
import { Diagram, type NodeInfo } from './Diagram.tsx';
import { layoutGraph } from './layout.ts';
import { StepPanel, TextInput } from './StepPanel.tsx';
import type { StepDraft } from './step-draft.ts';
import { fieldValue, keyFromName } from './step-draft.ts';
import { FieldSelect } from './Pickers.tsx';
import { TransitionsPanel } from './TransitionsPanel.tsx';
import { TRIGGER_EVENTS, WorkflowSettings } from './WorkflowSettings.tsx';
import '../../content/list/list.css';
import './workflows.css';

const ZOOMS = [0.5, 0.625, 0.75, 0.875, 1, 1.25];

export default function DesignerPage({ id }: { id: string }) {
  const caps = useCapabilities();
  const workflow = useQuery(workflowQuery(id));
  const roles = useQuery({ ...rolesQuery, retry: false });
  const collections = useCollections();
  const fields = useAllFields();
  const relations = useRelations();
  const perms = usePermissions();
  const globals = usePolicyGlobals();
  const schema = useMemo<Schema | null>(() => (collections.data && fields.data && relations.data && perms.data && globals.data
    ? { collections: collections.data, fields: fields.data, relations: relations.data, perms: perms.data, admin: globals.data.admin_access }
    : null), [collections.data, fields.data, relations.data, perms.data, globals.data]);

  if (workflow.error) {
    const missing = workflow.error instanceof ApiError && (workflow.error.status === 404 || workflow.error.status === 403);
    return (
      <div className="main-pane">
        <header className="page-header"><h1>{missing ? 'Workflow not found' : 'Workflow'}</h1></header>
        <div className="page-body">
          {missing ? <p>There is no workflow at this address, or you may not see it. <Link href="/workflows">Back to the workflows</Link></p>
            : <ErrorNotice error={workflow.error} onRetry={() => void workflow.refetch()} />}
        </div>
      </div>
    );
  }
  const schemaError = collections.error ?? fields.error ?? relations.error ?? perms.error ?? globals.error;
  if (schemaError) return <div className="main-pane"><div className="page-body"><ErrorNotice error={schemaError} /></div></div>;
  if (!workflow.data || !schema || !caps.ready) return <div className="main-pane"><Loading label="Loading the workflow" /></div>;
  return <Designer key={workflow.data.id} workflow={workflow.data} schema={schema} canManage={caps.has('workflow:manage')} roles={roles} />;
}

function Designer({ workflow, schema, canManage, roles }: {
  workflow: Workflow;
  schema: Schema;
  canManage: boolean;
  roles: { data?: RoleOption[]; error: unknown };
}) {
  const client = useQueryClient();
  const frozen = workflow.active;
  const readOnly = !canManage || frozen;
  const [selected, setSelected] = useState<string | null>(null);
  // Problems show once an activation was refused, and follow the graph from then on (the server gives them with
  // the workflow, read again after each change).
  const [showProblems, setShowProblems] = useState(false);
  const [activationError, setActivationError] = useState<unknown>(null);
  const [activating, setActivating] = useState(false);
  const [activated, setActivated] = useState('');
  const [adding, setAdding] = useState(false);
  const [zoom, setZoom] = useState(1);
  const drafts = useRef(new Map<string, StepDraft>());
  const [edited, setEdited] = useState<ReadonlySet<string>>(new Set());
  const [settingsDirty, setSettingsDirty] = useState(false);
  const viewport = useRef<HTMLDivElement>(null);
  const listId = useId();

  const { steps, transitions } = workflow;
  const layout = useMemo(() => layoutGraph(
    [...steps].sort((a, b) => a.sort_order - b.sort_order || a.key.localeCompare(b.key)).map((s) => ({ id: s.id, type: s.type })),
    transitions.map((t) => ({ id: t.id, from: t.from_step_id, to: t.to_step_id })),
  ), [steps, transitions]);
  const people = useQuery(peopleQuery(peopleIn(steps)));
  const collectionFields = useMemo(() => fieldsOf(schema.fields, workflow.collection), [schema.fields, workflow.collection]);
  const userFields = useMemo(() => new Set(schema.relations
    .filter((r) => r.collection === workflow.collection && r.related_collection === 'svc_users').map((r) => r.field)), [schema.relations, workflow.collection]);
  const filterOptions = useMemo(() => filterFields(schema, workflow.collection), [schema, workflow.collection]);
  const collectionLabel = titleOf(workflow.collection);

  // A diagram wider than its pane starts zoomed out to fit, but not below three quarters (where names stay legible;
  // the pane scrolls for the rest).
  const fitted = useRef(false);
  useLayoutEffect(() => {
    if (fitted.current || !viewport.current) return;
    fitted.current = true;
    const room = viewport.current.clientWidth - 8;
    if (layout.width > room) setZoom(Math.max(0.75, Math.floor((room / layout.width) * 8) / 8));
  }, [layout.width]);

  const select = useCallback((stepId: string | null) => setSelected(stepId), []);
  const remember = useCallback((stepId: string, draft: StepDraft | null) => {
    if (draft) drafts.current.set(stepId, draft);
    else drafts.current.delete(stepId);
    setEdited((prev) => (prev.has(stepId) === Boolean(draft) ? prev
      : new Set(draft ? [...prev, stepId] : [...prev].filter((x) => x !== stepId))));
  }, []);
  const deleted = useCallback((stepId: string) => {
    drafts.current.delete(stepId);
    setEdited((prev) => (prev.has(stepId) ? new Set([...prev].filter((x) => x !== stepId)) : prev));
    setSelected(null);
    // The button that opened the confirmation is gone: the diagram takes the focus.
    requestAnimationFrame(() => viewport.current?.querySelector<HTMLElement>('[data-step][tabindex="0"]')?.focus());
  }, []);
  // A step deleted elsewhere (or by a refetch) is no longer selected.
  useEffect(() => {
    if (selected && !steps.some((s) => s.id === selected)) setSelected(null);
  }, [steps, selected]);

  const problems: Problem[] | null = showProblems && !workflow.active ? workflow.problems ?? [] : null;
  const byKey = useMemo(() => new Map(steps.map((s) => [s.key, s])), [steps]);
  const stepProblems = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const p of problems ?? []) {
      const s = p.step ? byKey.get(p.step) : undefined;
      if (s) map.set(s.id, [...(map.get(s.id) ?? []), p.message]);
    }
    return map;
  }, [problems, byKey]);
  const generalProblems = (problems ?? []).filter((p) => !p.step || !byKey.has(p.step));
  const info = useMemo(() => {
    const map = new Map<string, NodeInfo>();
    for (const s of steps) map.set(s.id, { summary: summarize(s, roles.data, people.data, collectionLabel), problems: stepProblems.get(s.id) ?? [], edited: edited.has(s.id) });
    return map;
  }, [steps, roles.data, people.data, collectionLabel, stepProblems, edited]);

  const unsaved = edited.size > 0 || settingsDirty;
  const guard = useUnsavedGuard(unsaved && canManage, 'This workflow has changes that are not saved. They will be lost if you leave.');

  async function setActive(active: boolean): Promise<void> {
    setActivating(true);
    setActivationError(null);
    setActivated('');
    try {
      const row = await request<WorkflowRecord>('POST', `/workflows/${encodeURIComponent(workflow.id)}/${active ? 'activate' : 'deactivate'}`);
      client.setQueryData<Workflow>(workflowKey(workflow.id), (w) => w && { ...w, ...row });
      refreshWorkflow(client, workflow.id);
      setShowProblems(false);
      setActivated(active ? 'The workflow is active: submitted drafts that match its filter now follow it.' : 'The workflow is inactive; its steps can be changed.');
    } catch (err) {
      const found = active ? problemsOf(err) : null;
      if (found) {
        client.setQueryData<Workflow>(workflowKey(workflow.id), (w) => w && { ...w, problems: found });
        setShowProblems(true);
      } else setActivationError(plainError(err));
    } finally {
      setActivating(false);
    }
  }

  const step = selected ? steps.find((s) => s.id === selected) ?? null : null;
  const editedSteps = steps.filter((s) => edited.has(s.id));
  return (
    <div className="main-pane wf-designer-page">
      <header className="page-header wf-header">
        <div className="wf-title">
          <nav aria-label="Breadcrumb" className="wf-crumbs"><Link href="/workflows">Workflows</Link> <span aria-hidden="true">/</span></nav>
          <h1>{workflow.name}</h1>
          <span className={workflow.active ? 'badge wf-badge-active' : 'badge'}>{workflow.active ? 'Active' : 'Inactive'}</span>
          <span className="muted wf-subtitle">{collectionLabel} · {TRIGGER_EVENTS[workflow.trigger_event] ?? workflow.trigger_event}</span>
        </div>
        {canManage && (workflow.active
          ? <button type="button" className="btn" onClick={() => void setActive(false)} disabled={activating}>{activating ? 'Deactivating…' : 'Deactivate'}</button>
          : <button type="button" className="btn btn-primary" onClick={() => void setActive(true)} disabled={activating}>{activating ? 'Activating…' : 'Activate'}</button>)}
      </header>

      <div className="wf-notices">
        <span className="visually-hidden" role="status">{activated}</span>
        {activationError !== null && <ErrorNotice error={activationError} title={workflow.active ? 'The workflow was not deactivated.' : 'The workflow was not activated.'} />}
        {problems && problems.length === 0 && (
          <div className="notice notice-success" role="status">Nothing keeps the workflow from running now: activate it when you are ready.</div>
        )}
        {problems && problems.length > 0 && (
          <div className="notice notice-error wf-problems" role="alert">
            <div>
              <strong>The workflow cannot be activated yet.</strong>
              {generalProblems.length > 0 && <ul>{generalProblems.map((p) => <li key={p.message}>{plainMessage(p.message)}</li>)}</ul>}
              {stepProblems.size > 0 && (
                <p className="wf-problem-steps">
                  {stepProblems.size === 1 ? 'One step has a problem, shown on it:' : `${stepProblems.size} steps have problems, shown on them:`}{' '}
                  {[...stepProblems.keys()].map((sid) => (
                    <button key={sid} type="button" className="btn btn-small" onClick={() => select(sid)}>{steps.find((s) => s.id === sid)?.name}</button>
                  ))}
                </p>
              )}
            </div>
          </div>
        )}
        {frozen && canManage && (
          <div className="notice notice-warning wf-frozen">
            <span>This workflow is active, so its steps and transitions cannot be changed. Deactivate it to edit them: new drafts then stop starting it, and drafts already in review go on.</span>
          </div>
        )}
        {!canManage && <div className="notice wf-readonly">You can look at this workflow; changing it needs the workflow:manage permission.</div>}
      </div>

      <div className="wf-designer">
        <div className="wf-canvas-pane">
          <div className="toolbar wf-toolbar" role="toolbar" aria-label="Diagram">
            {!readOnly && <button type="button" className="btn btn-small" onClick={() => setAdding(true)}>+ Add step</button>}
            <button type="button" className="btn btn-small" aria-pressed={selected === null} onClick={() => select(null)}>Workflow settings</button>
            {editedSteps.length > 0 && (
              <span className="wf-edited" role="group" aria-label="Steps with unsaved changes">
                <span>Unsaved:</span>
                {editedSteps.slice(0, 3).map((s) => <button key={s.id} type="button" className="btn btn-small" onClick={() => select(s.id)}>{s.name}</button>)}
                {editedSteps.length > 3 && <span>and {editedSteps.length - 3} more</span>}
              </span>
            )}
            <span className="spacer" />
            <button type="button" className="btn btn-small icon-btn" aria-label="Zoom out" onClick={() => setZoom((z) => ZOOMS[Math.max(0, ZOOMS.indexOf(z) - 1)] ?? 0.5)} disabled={zoom <= ZOOMS[0]}>−</button>
            <span className="wf-zoom" aria-live="polite"><span className="visually-hidden">Zoom </span>{Math.round(zoom * 100)}%</span>
            <button type="button" className="btn btn-small icon-btn" aria-label="Zoom in" onClick={() => setZoom((z) => ZOOMS[Math.min(ZOOMS.length - 1, ZOOMS.indexOf(z) + 1)] ?? 1)} disabled={zoom >= ZOOMS[ZOOMS.length - 1]}>+</button>
            <button type="button" className="btn btn-small" onClick={() => {
              const room = (viewport.current?.clientWidth ?? layout.width) - 8;
              setZoom(Math.min(1, Math.max(0.5, Math.floor((room / layout.width) * 8) / 8)));
            }}>Fit width</button>
          </div>
          <div className="wf-viewport" ref={viewport}>
            {steps.length === 0 ? (
              <div className="wf-empty">
                <p><strong>No steps yet.</strong></p>
                <p className="muted">A workflow runs from one start step, through approvals, conditions, notifications and actions, to an end step.</p>
                {!readOnly && <button type="button" className="btn btn-primary" onClick={() => setAdding(true)}>Add the first step</button>}
              </div>
            ) : (
              <Diagram steps={steps} transitions={transitions} layout={layout} info={info} selected={selected} onSelect={select} zoom={zoom} describedBy={listId} />
            )}
          </div>
        </div>

        {/* Focusable when read-only: its disabled inputs would leave its scrolling out of keyboard reach. */}
        <aside className="wf-side" aria-label={step ? `Step ${step.name}` : 'Workflow settings'} tabIndex={readOnly ? 0 : undefined}>
          {step && (
            <StepPanel key={step.id} workflow={workflow} step={step} readOnly={readOnly} initial={drafts.current.get(step.id)} remember={remember}
              problems={stepProblems.get(step.id) ?? []} roles={roles} people={people.data} fields={collectionFields} userFields={userFields}
              filterFields={filterOptions} collectionLabel={collectionLabel} onDeleted={deleted} />
          )}
          <WorkflowSettings workflow={workflow} readOnly={!canManage} filterFields={filterOptions} fields={collectionFields}
            collectionLabel={collectionLabel} onDirty={setSettingsDirty} hidden={step !== null} />
        </aside>

        <div className="wf-bottom">
          <TransitionsPanel workflow={workflow} steps={steps} transitions={transitions} order={layout.order} selected={selected}
            readOnly={readOnly} listId={listId} onSelect={select} />
        </div>
      </div>
      {adding && (
        <AddStepDialog workflow={workflow} fields={collectionFields} onClose={() => setAdding(false)} onAdded={(row) => { setAdding(false); select(row.id); }} />
      )}
      {guard.dialog}
    </div>
  );
}

/** A few words on who or what a step involves, for its box in the diagram. */
function summarize(s: Step, roles: RoleOption[] | undefined, people: Map<string, Person> | undefined, collection: string): string {
  const who = (): string | null => {
    if (!s.assign_type || !s.assign_value) return null;
    if (s.assign_type === 'role') {
      const role = roles?.find((r) => r.id === s.assign_value);
      return role ? `Role ${role.name}` : 'A role';
    }
    if (s.assign_type === 'user') {
      const p = people?.get(s.assign_value);
      return p ? personName(p) : 'One user';
    }
    return `User in ${titleOf(s.assign_value)}`;
  };
  switch (s.type) {
    case 'start': return `When a draft of ${collection} is submitted`;
    case 'end': return 'Ends the workflow';
    case 'approval': {
      const mode = s.approval_mode === 'any' ? 'any' : s.approval_mode;
      return who() ? `${who()} · ${mode}` : 'No assignees';
    }
    case 'notification': return who() ? `To ${who()}` : 'No recipients';
    case 'condition': {
      const n = countConditions(fromApiFilter(s.options?.condition ?? null));
      return n === 0 ? 'No condition' : n === 1 ? '1 condition' : `${n} conditions`;
    }
    case 'action':
      if (s.action_type === 'update_field') return `Sets ${titleOf(String(s.action_config?.field ?? '')).toLowerCase()}`;
      if (s.action_type === 'send_notification') return s.action_config?.template_id ? `Sends ${String(s.action_config.template_id)}` : 'Sends a notification';
      if (s.action_type === 'promote_version') return 'Publishes the draft';
      return 'No action chosen';
  }
}

function AddStepDialog({ workflow, fields, onClose, onAdded }: { workflow: Workflow; fields: Field[]; onClose(): void; onAdded(step: Step): void }) {
  const client = useQueryClient();
  const id = useId();
  const hasStart = workflow.steps.some((s) => s.type === 'start');
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [keyTouched, setKeyTouched] = useState(false);
  const [type, setType] = useState<StepType>(hasStart ? 'approval' : 'start');
  // An action step is created with its action (the server refuses one without); update_field with its field and value.
  const [action, setAction] = useState<ActionType | ''>('');
  const [field, setField] = useState('');
  const [value, setValue] = useState('');
  const updatable = fields.filter((f) => f.type !== 'alias' && !f.schema?.is_primary_key);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const effectiveKey = keyTouched ? key : keyFromName(name);

  async function submit(): Promise<void> {
    if (busy) return;
    const local: Record<string, string> = {};
    if (!name.trim()) local.name = 'Give the step a name.';
    if (!effectiveKey) local.key = 'Give the step a key.';
    else if (!/^[A-Za-z0-9_-]+$/.test(effectiveKey)) local.key = 'Use letters, digits, _ and - only.';
    else if (workflow.steps.some((s) => s.key === effectiveKey)) local.key = `The workflow already has a step with the key “${effectiveKey}”.`;
    const extra: Record<string, unknown> = {};
    if (type === 'action') {
      if (!action) local.action = 'Choose what the step does.';
      else extra.action_type = action;
      if (action === 'update_field') {
        if (!field) local.field = 'Choose the field to set.';
        const typed = fieldValue({ updateValue: value, updateNull: false }, fields.find((f) => f.field === field));
        if (field && typed.error) local.value = typed.error;
        extra.action_config = { field, value: typed.value };
      }
    }
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    setError(null);
    try {
      const sort = Math.max(-1, ...workflow.steps.map((s) => s.sort_order)) + 1;
      const row = await request<Step>('POST', `/workflows/${encodeURIComponent(workflow.id)}/steps`, { body: { key: effectiveKey, name: name.trim(), type, sort_order: sort, ...extra } });
      client.setQueryData<Workflow>(workflowKey(workflow.id), (w) => w && { ...w, steps: [...w.steps, row] });
      refreshWorkflow(client, workflow.id);
      onAdded(row);
    } catch (err) {
      const field = err instanceof ApiError ? err.items[0]?.field : undefined;
      const named = field === 'action_type' ? 'action' : field === 'action_config' ? 'field' : field;
      if (named && ['key', 'name', 'type', 'action', 'field'].includes(named) && err instanceof ApiError) setErrors({ [named]: plainMessage(err.message) });
      else setError(plainError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title="Add a step" onClose={onClose} onSubmit={() => void submit()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Adding…' : 'Add step'}</button>
      </>}>
      <TextInput id={`${id}-name`} label="Name" value={name} onChange={(v) => { setName(v); setErrors({}); }} error={errors.name} maxLength={255} />
      <TextInput id={`${id}-key`} label="Key" value={effectiveKey} onChange={(v) => { setKey(v); setKeyTouched(true); setErrors({}); }} error={errors.key} maxLength={64} mono
        note="Made from the name; letters, digits, _ and -, unique in the workflow." />
      <div className="field">
        <label htmlFor={`${id}-type`}>Type</label>
        <select id={`${id}-type`} value={type} onChange={(e) => setType(e.target.value as StepType)} aria-describedby={`${id}-type-note`}>
          {STEP_TYPES.map((t) => <option key={t} value={t}>{TYPE_LABELS[t]}</option>)}
        </select>
        <span className="field-note" id={`${id}-type-note`}>{TYPE_NOTES[type]} You set the rest in the step's form.</span>
        {errors.type && <span className="field-error">{errors.type}</span>}
      </div>
      {type === 'action' && (
        <div className="field">
          <label htmlFor={`${id}-action`}>Action</label>
          <select id={`${id}-action`} value={action} onChange={(e) => { setAction(e.target.value as ActionType | ''); setErrors({}); }}
            aria-invalid={Boolean(errors.action) || undefined} aria-describedby={errors.action ? `${id}-action-error` : undefined}>
            <option value="">Choose an action…</option>
            {ACTION_TYPES.map((a) => <option key={a} value={a}>{ACTION_LABELS[a]}</option>)}
          </select>
          {errors.action && <span className="field-error" id={`${id}-action-error`}>{errors.action}</span>}
        </div>
      )}
      {type === 'action' && action === 'update_field' && (
        <>
          <FieldSelect label="Field to set" value={field} onChange={(v) => { setField(v); setErrors({}); }} fields={updatable} error={errors.field} />
          <TextInput id={`${id}-value`} label="New value" value={value} onChange={(v) => { setValue(v); setErrors({}); }} error={errors.value}
            note="As text; numbers, true/false and JSON are read by the field's type." />
        </>
      )}
      {error !== null && <ErrorNotice error={error} />}
    </Dialog>
  );
}
