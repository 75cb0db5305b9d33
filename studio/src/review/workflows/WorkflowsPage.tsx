/** /review/workflows: the workflows, paged and searched on the server (name, collection, whether active, how many
 * steps); create one (name, collection, the event that starts it) and its designer opens; delete one after typing
 * its name. Offered to admins and workflow:manage; workflow:view sees the list without the buttons. */
import { useId, useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useCapabilities } from '../../app/capabilities.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { titleOf, useCollections } from '../../content/schema.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { invalidateLists, plainError, plainMessage, workflowListQuery, type WorkflowListRow, type WorkflowRecord } from './data.ts';
import { TextInput } from './StepPanel.tsx';
import { TRIGGER_EVENTS } from './WorkflowSettings.tsx';
import './workflows.css';

export default function WorkflowsPage() {
  const caps = useCapabilities();
  const canManage = caps.has('workflow:manage');
  const [, navigate] = useLocation();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<WorkflowListRow | null>(null);
  const client = useQueryClient();
  const term = useDebounced(search.trim(), 250);
  const list = useQuery({ ...workflowListQuery({ search: term || undefined, limit, page }), placeholderData: keepPreviousData });
  const rows = list.data?.data ?? [];
  const total = list.data?.meta.filter_count;
  const none = list.data?.meta.total_count === 0;

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Workflows</h1>
        {canManage && <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>New workflow</button>}
      </header>
      <div className="toolbar" role="search" aria-label="Find workflows">
        <input type="search" aria-label="Search workflows" placeholder="Search by name or collection" value={search}
          onChange={(e) => { setSearch(e.target.value); setPage(1); }} />
        <span className="muted">A workflow routes the drafts submitted on one collection through review steps before they are published.</span>
      </div>
      <div className="page-body">
        {list.error ? <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
          : !list.data ? <Loading label="Loading workflows" />
            : none ? (
              <div className="wf-empty wf-empty-list">
                <p><strong>No workflows yet.</strong></p>
                <p className="muted">Without one, a submitted draft waits for someone with permission to publish it. With one, it follows the steps you design: approvals by roles or people, conditions, notifications and actions.</p>
                {canManage && <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>Create the first workflow</button>}
              </div>
            ) : (
              <>
                <div className="table-wrap" aria-busy={list.isFetching}>
                  <table className="grid wf-table">
                    <caption className="visually-hidden">Workflows</caption>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Collection</th>
                        <th scope="col">Starts when</th>
                        <th scope="col">Status</th>
                        <th scope="col" className="num">Steps</th>
                        {canManage && <th scope="col"><span className="visually-hidden">Actions</span></th>}
                      </tr>
                    </thead>
                    <tbody>
                      {rows.length === 0 && <tr><td colSpan={canManage ? 6 : 5} className="muted">No workflow matches “{term}”.</td></tr>}
                      {rows.map((w) => (
                        <tr key={w.id}>
                          <td>
                            <Link className="row-link wf-name-link" href={`/workflows/${w.id}`}>{w.name}</Link>
                            {w.description && <span className="muted wf-row-note">{w.description}</span>}
                          </td>
                          <td>{titleOf(w.collection)} <span className="muted mono">{w.collection}</span></td>
                          <td>{TRIGGER_EVENTS[w.trigger_event] ?? w.trigger_event}{w.trigger_filter ? <span className="muted"> (filtered)</span> : null}</td>
                          <td><span className={w.active ? 'badge wf-badge-active' : 'badge'}>{w.active ? 'Active' : 'Inactive'}</span></td>
                          <td className="num">{w.step_count}</td>
                          {canManage && (
                            <td className="wf-row-actions">
                              <button type="button" className="btn btn-small btn-ghost" aria-label={`Delete ${w.name}`} onClick={() => setDeleting(w)}>Delete</button>
                            </td>
                          )}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager page={page} pages={Math.max(1, Math.ceil((total ?? 0) / limit))} onPage={setPage} limit={limit}
                  onLimit={(n) => { setLimit(n); setPage(1); }} summary={rangeSummary(page, limit, rows.length, total, 'workflows')} label="Pages of workflows" />
              </>
            )}
      </div>
      {creating && <CreateDialog onClose={() => setCreating(false)} onCreated={(id) => navigate(`/workflows/${id}`)} />}
      {deleting && (
        <ConfirmDialog title={`Delete the workflow “${deleting.name}”?`} confirmLabel="Delete workflow" typeToConfirm={deleting.name}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await request('DELETE', `/workflows/${encodeURIComponent(deleting.id)}`).catch((err: unknown) => { throw plainError(err); });
            await invalidateLists(client);
            setDeleting(null);
          }}>
          <p>
            The workflow and its {deleting.step_count === 1 ? 'step' : `${deleting.step_count} steps`} and transitions are deleted, with the history of its finished reviews.
            A workflow with reviews still running cannot be deleted: cancel them first.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function CreateDialog({ onClose, onCreated }: { onClose(): void; onCreated(id: string): void }) {
  const client = useQueryClient();
  const collections = useCollections();
  const id = useId();
  const [name, setName] = useState('');
  const [collection, setCollection] = useState('');
  const [event, setEvent] = useState('versions.submit');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const choices = (collections.data ?? []).filter((c) => c.schema !== null && !c.collection.startsWith('svc_'))
    .sort((a, b) => a.collection.localeCompare(b.collection));

  async function submit(): Promise<void> {
    if (busy) return;
    const local: Record<string, string> = {};
    if (!name.trim()) local.name = 'Give the workflow a name.';
    if (!collection) local.collection = 'Choose the collection whose drafts it reviews.';
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    setError(null);
    try {
      const row = await request<WorkflowRecord>('POST', '/workflows', { body: { name: name.trim(), collection, trigger_event: event } });
      void invalidateLists(client);
      onCreated(row.id);
    } catch (err) {
      const field = err instanceof ApiError ? err.items[0]?.field : undefined;
      if (field && ['name', 'collection', 'trigger_event'].includes(field) && err instanceof ApiError) setErrors({ [field]: plainMessage(err.message) });
      else setError(plainError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title="New workflow" onClose={onClose} onSubmit={() => void submit()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create workflow'}</button>
      </>}>
      <TextInput id={`${id}-name`} label="Name" value={name} onChange={(v) => { setName(v); setErrors({}); }} error={errors.name} maxLength={255} />
      <div className="field">
        <label htmlFor={`${id}-collection`}>Collection</label>
        <select id={`${id}-collection`} value={collection} onChange={(e) => { setCollection(e.target.value); setErrors({}); }}
          aria-invalid={Boolean(errors.collection) || undefined} aria-describedby={errors.collection ? `${id}-collection-error` : undefined}>
          <option value="">Choose a collection…</option>
          {choices.map((c) => <option key={c.collection} value={c.collection}>{titleOf(c.collection)} ({c.collection})</option>)}
        </select>
        {collections.error ? <span className="field-error">{plainMessage(String((collections.error as Error).message))}</span> : null}
        {errors.collection && <span className="field-error" id={`${id}-collection-error`}>{errors.collection}</span>}
      </div>
      <div className="field">
        <label htmlFor={`${id}-event`}>Starts when</label>
        <select id={`${id}-event`} value={event} onChange={(e) => setEvent(e.target.value)}>
          {Object.entries(TRIGGER_EVENTS).map(([value, label]) => <option key={value} value={value}>{label}</option>)}
        </select>
        <span className="field-note">You add its steps, and a filter on which drafts it takes, in the designer next.</span>
      </div>
      {error !== null && <ErrorNotice error={error} />}
    </Dialog>
  );
}
