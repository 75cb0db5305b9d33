/** The transitions in words (the diagram's text alternative): from, when, to, in the order of the steps, those of
 * the selected step marked; add one (from, trigger, to: only the triggers its step's type allows) and delete one.
 * Read-only while the graph is frozen or for those who may only look. */
import { memo, useId, useMemo, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import {
  TRIGGER_LABELS, TRIGGER_NOTES, invalidateLists, plainError, refreshWorkflow, triggersFor, workflowKey,
  type Step, type Transition, type Trigger, type Workflow,
} from './data.ts';

export const TransitionsPanel = memo(function TransitionsPanel({ workflow, steps, transitions, order, selected, readOnly, listId, onSelect }: {
  workflow: Workflow;
  steps: Step[];
  transitions: Transition[];
  /** Step ids in the diagram's reading order. */
  order: string[];
  selected: string | null;
  readOnly: boolean;
  listId: string;
  onSelect(id: string): void;
}) {
  const client = useQueryClient();
  const byId = useMemo(() => new Map(steps.map((s) => [s.id, s])), [steps]);
  const rank = useMemo(() => new Map(order.map((id, i) => [id, i])), [order]);
  const sorted = useMemo(() => [...transitions].sort((a, b) => (rank.get(a.from_step_id) ?? 0) - (rank.get(b.from_step_id) ?? 0)
    || (rank.get(a.to_step_id) ?? 0) - (rank.get(b.to_step_id) ?? 0)), [transitions, rank]);
  const [error, setError] = useState<unknown>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  // The list can fold away to leave the diagram more room (the add form stays).
  const [open, setOpen] = useState(true);
  const headingId = useId();
  const sectionRef = useRef<HTMLElement>(null);
  const name = (id: string): string => byId.get(id)?.name ?? 'a missing step';

  async function remove(t: Transition): Promise<void> {
    setRemoving(t.id);
    setError(null);
    try {
      await request('DELETE', `/workflows/${encodeURIComponent(workflow.id)}/transitions/${encodeURIComponent(t.id)}`);
      const at = sorted.findIndex((x) => x.id === t.id);
      client.setQueryData<Workflow>(workflowKey(workflow.id), (w) => w && { ...w, transitions: w.transitions.filter((x) => x.id !== t.id) });
      refreshWorkflow(client, workflow.id);
      // The focus goes to the Delete button that takes the removed one's place (or the last one, or the form).
      requestAnimationFrame(() => {
        const buttons = sectionRef.current?.querySelectorAll<HTMLElement>('.wf-transition .wf-remove');
        const next = buttons && buttons.length ? buttons[Math.min(at, buttons.length - 1)] : sectionRef.current?.querySelector<HTMLElement>('select');
        next?.focus();
      });
    } catch (err) {
      setError(plainError(err));
    } finally {
      setRemoving(null);
    }
  }

  return (
    <section className="wf-transitions" aria-labelledby={headingId} ref={sectionRef}>
      <div className="wf-transitions-head">
        <h2 id={headingId}>Transitions <span className="muted">({transitions.length})</span></h2>
        {sorted.length > 0 && (
          <button type="button" className="btn btn-small btn-ghost" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
            {open ? 'Hide the list' : 'Show the list'}
          </button>
        )}
      </div>
      {sorted.length === 0 ? (
        <p className="muted" id={listId}>No transitions yet: each step needs one to the step that follows it.</p>
      ) : (
        <ul className="wf-transition-list" id={listId} aria-label="Transitions" hidden={!open}>
          {sorted.map((t) => {
            const current = selected !== null && (t.from_step_id === selected || t.to_step_id === selected);
            return (
              <li key={t.id} className={current ? 'wf-transition current' : 'wf-transition'}>
                <button type="button" className="wf-link" onClick={() => onSelect(t.from_step_id)}>{name(t.from_step_id)}</button>
                <span className={`wf-trigger wf-${t.trigger}`}>{TRIGGER_LABELS[t.trigger]}{t.condition ? ' (own condition)' : ''}</span>
                <span aria-hidden="true" className="wf-arrow-text">→</span>
                <span className="visually-hidden"> to </span>
                <button type="button" className="wf-link" onClick={() => onSelect(t.to_step_id)}>{name(t.to_step_id)}</button>
                {!readOnly && (
                  <button type="button" className="btn btn-small btn-ghost wf-remove" disabled={removing === t.id}
                    aria-label={`Delete the transition from ${name(t.from_step_id)} to ${name(t.to_step_id)} (${t.trigger})`} onClick={() => void remove(t)}>
                    {removing === t.id ? 'Deleting…' : 'Delete'}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {error !== null && <ErrorNotice error={error} title="The transition was not deleted." />}
      {!readOnly && <AddTransition workflow={workflow} steps={steps} transitions={transitions} order={order} selected={selected} />}
    </section>
  );
});

function AddTransition({ workflow, steps, transitions, order, selected }: {
  workflow: Workflow; steps: Step[]; transitions: Transition[]; order: string[]; selected: string | null;
}) {
  const client = useQueryClient();
  const id = useId();
  const ordered = useMemo(() => {
    const byId = new Map(steps.map((s) => [s.id, s]));
    return order.map((x) => byId.get(x)).filter((s): s is Step => Boolean(s));
  }, [steps, order]);
  const sources = ordered.filter((s) => s.type !== 'end');
  const [from, setFrom] = useState('');
  const [trigger, setTrigger] = useState<Trigger | ''>('');
  const [to, setTo] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // What was added last, said while that transition is still there.
  const [added, setAdded] = useState<{ id: string; text: string } | null>(null);
  // The selected step is the natural start of a new transition, until one is chosen here.
  const fromId = from || (selected && sources.some((s) => s.id === selected) ? selected : sources[0]?.id ?? '');
  const source = steps.find((s) => s.id === fromId);
  const allowed = source ? triggersFor(source.type) : [];
  const when: Trigger | '' = trigger && allowed.includes(trigger) ? trigger : allowed[0] ?? '';

  async function add(): Promise<void> {
    if (busy || !fromId || !to || !when) return;
    setBusy(true);
    setError(null);
    try {
      const row = await request<Transition>('POST', `/workflows/${encodeURIComponent(workflow.id)}/transitions`, { body: { from_step_id: fromId, to_step_id: to, trigger: when } });
      client.setQueryData<Workflow>(workflowKey(workflow.id), (w) => w && { ...w, transitions: [...w.transitions, row] });
      refreshWorkflow(client, workflow.id);
      setAdded({ id: row.id, text: `Added: ${source?.name} ${when} → ${steps.find((s) => s.id === to)?.name}.` });
      setTo('');
    } catch (err) {
      setError(plainError(err));
    } finally {
      setBusy(false);
    }
  }

  if (sources.length === 0) return <p className="muted">Add steps first; then connect them here.</p>;
  return (
    <form className="wf-add-transition" aria-label="Add a transition" noValidate onSubmit={(e) => { e.preventDefault(); void add(); }}>
      <div className="field">
        <label htmlFor={`${id}-from`}>From</label>
        <select id={`${id}-from`} value={fromId} onChange={(e) => { setFrom(e.target.value); setAdded(null); }}>
          {sources.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-when`}>When</label>
        <select id={`${id}-when`} value={when} onChange={(e) => setTrigger(e.target.value as Trigger)} title={when ? TRIGGER_NOTES[when] : undefined}>
          {allowed.map((t) => <option key={t} value={t}>{TRIGGER_LABELS[t]}: {TRIGGER_NOTES[t]}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>To</label>
        <select id={`${id}-to`} value={to} onChange={(e) => { setTo(e.target.value); setAdded(null); }}>
          <option value="">Choose a step…</option>
          {ordered.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
        </select>
      </div>
      <button type="submit" className="btn" disabled={busy || !to || !when}>{busy ? 'Adding…' : 'Add transition'}</button>
      <span className="wf-saved" role="status">{added && transitions.some((t) => t.id === added.id) ? added.text : ''}</span>
      {error !== null && <div className="wf-add-error"><ErrorNotice error={error} title="The transition was not added." /></div>}
    </form>
  );
}
