/** The workflow's own settings: name, description, the event that starts it and the trigger filter (the filter
 * builder over its collection: only submissions whose item, merged with the draft, matches start it). These stay
 * editable while the workflow is active (only its graph is frozen). */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { FilterBuilder } from '../../content/list/FilterBuilder.tsx';
import { fromApiFilter } from '../../content/list/filter.ts';
import type { FilterField } from '../../content/list/model.ts';
import type { Field } from '../../content/schema.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { invalidateLists, plainError, plainMessage, workflowKey, type Workflow, type WorkflowRecord } from './data.ts';
import { TextInput } from './StepPanel.tsx';
import { storedFilter } from './step-draft.ts';

export const TRIGGER_EVENTS: Record<string, string> = { 'versions.submit': 'A draft (version) is submitted for review' };

export function WorkflowSettings({ workflow, readOnly, filterFields, fields, collectionLabel, onDirty, hidden }: {
  workflow: Workflow;
  /** Kept mounted (and its edits kept) while a step's form is shown instead. */
  hidden: boolean;
  readOnly: boolean;
  filterFields: FilterField[];
  fields: Field[];
  collectionLabel: string;
  onDirty(dirty: boolean): void;
}) {
  const client = useQueryClient();
  const id = useId();
  const [name, setName] = useState(workflow.name);
  const [description, setDescription] = useState(workflow.description ?? '');
  const [event, setEvent] = useState(workflow.trigger_event);
  const [tree, setTree] = useState(() => fromApiFilter(workflow.trigger_filter));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const filter = storedFilter(tree, fields);
  const body = useMemo(() => ({ name: name.trim(), description: description.trim() || null, trigger_event: event, trigger_filter: filter }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [name, description, event, JSON.stringify(filter)]);
  // The saved filter in the builder's own form ({field: …} comes back as {_and: [{field: …}]}).
  const savedFilter = useMemo(() => storedFilter(fromApiFilter(workflow.trigger_filter), fields), [workflow.trigger_filter, fields]);
  const savedBody = { name: workflow.name, description: workflow.description || null, trigger_event: workflow.trigger_event, trigger_filter: savedFilter };
  const dirty = JSON.stringify(body) !== JSON.stringify(savedBody);
  const reportDirty = useRef(onDirty);
  reportDirty.current = onDirty;
  useEffect(() => { reportDirty.current(dirty); }, [dirty]);

  async function save(): Promise<void> {
    if (busy || readOnly) return;
    if (!body.name) {
      setErrors({ name: 'Give the workflow a name.' });
      return;
    }
    setBusy(true);
    setError(null);
    setErrors({});
    try {
      const row = await request<WorkflowRecord>('PATCH', `/workflows/${encodeURIComponent(workflow.id)}`, { body });
      client.setQueryData<Workflow>(workflowKey(workflow.id), (w) => w && { ...w, ...row });
      void invalidateLists(client);
      setSaved(true);
    } catch (err) {
      const field = err instanceof ApiError ? err.items[0]?.field : undefined;
      if (field && ['name', 'description', 'trigger_filter', 'trigger_event'].includes(field) && err instanceof ApiError) setErrors({ [field]: plainMessage(err.message) });
      else setError(plainError(err));
    } finally {
      setBusy(false);
    }
  }

  const discard = (): void => {
    setName(workflow.name);
    setDescription(workflow.description ?? '');
    setEvent(workflow.trigger_event);
    setTree(fromApiFilter(workflow.trigger_filter));
    setErrors({});
    setError(null);
  };

  return (
    <section className="wf-panel" aria-labelledby={`${id}-heading`} hidden={hidden}>
      <header className="wf-panel-head"><h2 id={`${id}-heading`}>Workflow settings</h2>{dirty && <span className="badge wf-badge-edited">Unsaved changes</span>}</header>
      <form className="wf-form" noValidate onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <fieldset disabled={readOnly} className="wf-fieldset">
          <legend className="visually-hidden">Workflow settings</legend>
          <TextInput id={`${id}-name`} label="Name" value={name} onChange={(v) => { setName(v); setSaved(false); setErrors({}); }} error={errors.name} maxLength={255} />
          <div className="field">
            <label htmlFor={`${id}-description`}>Description</label>
            <textarea id={`${id}-description`} rows={2} value={description} onChange={(e) => { setDescription(e.target.value); setSaved(false); }}
              aria-invalid={Boolean(errors.description) || undefined} />
            {errors.description && <span className="field-error">{errors.description}</span>}
          </div>
          <div className="field">
            <span className="wf-label">Collection</span>
            <span className="wf-static">{collectionLabel} <span className="muted mono">({workflow.collection})</span></span>
          </div>
          <div className="field">
            <label htmlFor={`${id}-event`}>Starts when</label>
            <select id={`${id}-event`} value={event} onChange={(e) => { setEvent(e.target.value); setSaved(false); }}>
              {Object.entries(TRIGGER_EVENTS).map(([value, label]) => <option key={value} value={value}>{label}</option>)}
              {!TRIGGER_EVENTS[event] && <option value={event}>{event}</option>}
            </select>
          </div>
          <fieldset className="wf-group">
            <legend>Trigger filter</legend>
            <FilterBuilder root={tree} fields={filterFields} onChange={(next) => { setTree(next); setSaved(false); setErrors({}); }} collectionLabel={collectionLabel}
              matchLabel="Start for items that match" emptyText={`No conditions: every submitted draft of ${collectionLabel} starts this workflow.`} />
            <p className="field-note">Checked on the item as the submitted draft would make it. When several active workflows match, the first by name starts.</p>
            {errors.trigger_filter && <span className="field-error">{errors.trigger_filter}</span>}
          </fieldset>
        </fieldset>
        {!readOnly && (
          <div className="wf-panel-foot">
            {error !== null && <ErrorNotice error={error} title="The settings were not saved." />}
            <div className="wf-buttons">
              <button type="submit" className="btn btn-primary" disabled={busy || !dirty}>{busy ? 'Saving…' : 'Save settings'}</button>
              <button type="button" className="btn" onClick={discard} disabled={busy || !dirty}>Discard changes</button>
              <span className="wf-saved" role="status">{saved && !dirty ? 'Saved' : ''}</span>
            </div>
          </div>
        )}
      </form>
    </section>
  );
}
