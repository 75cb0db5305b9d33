/** Messaging > Templates: the named messages the API and workflows send (POST /notify/trigger), paged on the
 * server, searched and filtered by status; a new one is named here and edited on its own page. */
import { useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { CHANNELS, channelLabel, jsonValue, listPage, type Channel, type Template } from '../api.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';

const STATUS_LABEL: Record<string, string> = { published: 'Published', draft: 'Draft', archived: 'Archived' };

export default function TemplatesPage() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [creating, setCreating] = useState(false);
  const term = useDebounced(search.trim(), 250);
  const list = useQuery({
    queryKey: ['messaging', 'templates', { term, status, page, limit }],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => listPage<Template>('/notify/templates', {
      fields: ['id', 'name', 'channels', 'status', 'layout_id', 'is_system'], sort: ['name'], limit, page,
      search: term || undefined, filter: status ? { status: { _eq: status } } : undefined,
    }, signal),
  });
  const total = list.data?.meta.filter_count;
  const pages = Math.max(1, Math.ceil((total ?? 0) / limit));

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Templates</h1>
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>New template</button>
      </header>
      <div className="toolbar" role="search" aria-label="Templates">
        <input type="search" aria-label="Search templates" placeholder="Search templates" value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} />
        <label className="inline-field">
          <span>Status</span>
          <select value={status} onChange={(e) => { setStatus(e.target.value); setPage(1); }}>
            <option value="">Any</option>
            {Object.entries(STATUS_LABEL).map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
      </div>
      <div className="page-body">
        {list.error ? <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
          : !list.data ? <Loading label="Loading templates" />
          : list.data.data.length === 0 ? (
            <div className="empty-state">
              <h2>{term || status ? 'No templates match' : 'No templates yet'}</h2>
              <p className="muted">{term || status ? 'Try other words or another status.' : 'A template is a message your project sends: its text per provider and language, wrapped in a layout.'}</p>
            </div>
          ) : (
            <>
              <div className="table-wrap">
                <table className="grid" aria-label="Templates">
                  <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Channels</th><th scope="col">Layout</th><th scope="col">Status</th></tr></thead>
                  <tbody>
                    {list.data.data.map((t) => (
                      <tr key={t.id}>
                        <th scope="row"><Link className="row-link strong" href={`/templates/${encodeURIComponent(t.id)}`}>{t.name}</Link>{t.is_system && <span className="badge">System</span>}</th>
                        <td className="mono">{t.id}</td>
                        <td>{(jsonValue<Channel[]>(t.channels) ?? []).map(channelLabel).join(', ')}</td>
                        <td className="mono">{t.layout_id ?? <span className="muted">None</span>}</td>
                        <td><span className={`status status-${t.status}`}>{STATUS_LABEL[t.status] ?? t.status}</span></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={page} pages={pages} onPage={setPage} limit={limit} onLimit={(n) => { setLimit(n); setPage(1); }}
                summary={rangeSummary(page, limit, list.data.data.length, total, 'templates')} label="Template pages" />
            </>
          )}
      </div>
      {creating && <NewTemplateDialog onClose={() => setCreating(false)} />}
    </div>
  );
}

function NewTemplateDialog({ onClose }: { onClose(): void }) {
  const [, navigate] = useLocation();
  const ids = useId();
  const [name, setName] = useState('');
  const [id, setId] = useState('');
  const [channels, setChannels] = useState<Channel[]>(['email']);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const fe = error instanceof ApiError ? error.fieldErrors() : {};

  async function create(): Promise<void> {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const created = await request<string>('POST', '/notify/templates', { body: { name: name.trim(), ...(id.trim() ? { id: id.trim() } : {}), channels, status: 'draft' } });
      navigate(`/templates/${encodeURIComponent(created)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <Dialog title="New template" onClose={onClose} onSubmit={() => void create()}
      footer={<><button type="button" className="btn" onClick={onClose}>Cancel</button><button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create template'}</button></>}>
      <div className="field">
        <label htmlFor={`${ids}-name`}>Name<span aria-hidden="true" className="required">*</span></label>
        <input id={`${ids}-name`} value={name} onChange={(e) => setName(e.target.value)} required aria-invalid={fe.name ? true : undefined} />
        {fe.name && <span className="field-error">{fe.name}</span>}
      </div>
      <div className="field">
        <label htmlFor={`${ids}-id`}>Id</label>
        <input id={`${ids}-id`} className="mono" value={id} onChange={(e) => setId(e.target.value)} aria-describedby={`${ids}-id-note`} aria-invalid={fe.id ? true : undefined} spellCheck={false} />
        <span className="field-note" id={`${ids}-id-note`}>What the API and workflows send it by (POST /notify/trigger). Letters, digits, "-", "_", "."; made from the name when empty. It cannot change later.</span>
        {fe.id && <span className="field-error">{fe.id}</span>}
      </div>
      <fieldset className="checks">
        <legend>Channels</legend>
        {CHANNELS.map((c) => (
          <label key={c.id} className="check">
            <input type="checkbox" checked={channels.includes(c.id)} onChange={(e) => setChannels((prev) => e.target.checked ? [...prev, c.id] : prev.filter((x) => x !== c.id))} /> {c.label}
          </label>
        ))}
        {fe.channels && <span className="field-error">{fe.channels}</span>}
      </fieldset>
      {error !== null && !fe.name && !fe.id && !fe.channels && <ErrorNotice error={error} />}
    </Dialog>
  );
}
