/** Messaging > Layouts: the frames email contents are wrapped in (a header, a footer, the styles), paged on the
 * server and searched; a new one starts from a minimal document with the {{{content}}} placeholder. */
import { useId, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Pager, rangeSummary } from '../../ui/Pager.tsx';
import { listPage, type Layout } from '../api.ts';

export const STARTER_LAYOUT = `<!doctype html>
<html>
  <body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,sans-serif;color:#1b2330">
    <div style="max-width:600px;margin:0 auto;background:#ffffff;padding:24px;border-radius:6px">
      {{{content}}}
    </div>
  </body>
</html>
`;

export default function LayoutsPage() {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(25);
  const [creating, setCreating] = useState(false);
  const term = useDebounced(search.trim(), 250);
  const list = useQuery({
    queryKey: ['messaging', 'layouts', { term, page, limit }],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => listPage<Layout>('/notify/layouts', { fields: ['id', 'name', 'description'], sort: ['name'], limit, page, search: term || undefined }, signal),
  });
  const total = list.data?.meta.filter_count;
  const pages = Math.max(1, Math.ceil((total ?? 0) / limit));
  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Layouts</h1>
        <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>New layout</button>
      </header>
      <div className="toolbar" role="search" aria-label="Layouts">
        <input type="search" aria-label="Search layouts" placeholder="Search layouts" value={search} onChange={(e) => { setSearch(e.target.value); setPage(1); }} />
      </div>
      <div className="page-body">
        {list.error ? <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
          : !list.data ? <Loading label="Loading layouts" />
          : list.data.data.length === 0 ? (
            <div className="empty-state">
              <h2>{term ? 'No layouts match' : 'No layouts yet'}</h2>
              <p className="muted">{term ? 'Try other words.' : 'A layout is the frame around email contents: your header, footer and styles, with {{{content}}} where the message goes.'}</p>
            </div>
          ) : (
            <>
              <div className="table-wrap">
                <table className="grid" aria-label="Layouts">
                  <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Description</th></tr></thead>
                  <tbody>
                    {list.data.data.map((l) => (
                      <tr key={l.id}>
                        <th scope="row"><Link className="row-link strong" href={`/layouts/${encodeURIComponent(l.id)}`}>{l.name}</Link></th>
                        <td className="mono">{l.id}</td>
                        <td className="cell-wide">{l.description ?? ''}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={page} pages={pages} onPage={setPage} limit={limit} onLimit={(n) => { setLimit(n); setPage(1); }}
                summary={rangeSummary(page, limit, list.data.data.length, total, 'layouts')} label="Layout pages" />
            </>
          )}
      </div>
      {creating && <NewLayoutDialog onClose={() => setCreating(false)} />}
    </div>
  );
}

function NewLayoutDialog({ onClose }: { onClose(): void }) {
  const [, navigate] = useLocation();
  const ids = useId();
  const [name, setName] = useState('');
  const [id, setId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const fe = error instanceof ApiError ? error.fieldErrors() : {};

  async function create(): Promise<void> {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const created = await request<string>('POST', '/notify/layouts', { body: { name: name.trim(), ...(id.trim() ? { id: id.trim() } : {}), content: STARTER_LAYOUT } });
      navigate(`/layouts/${encodeURIComponent(created)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <Dialog title="New layout" onClose={onClose} onSubmit={() => void create()}
      footer={<><button type="button" className="btn" onClick={onClose}>Cancel</button><button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create layout'}</button></>}>
      <div className="field">
        <label htmlFor={`${ids}-name`}>Name<span aria-hidden="true" className="required">*</span></label>
        <input id={`${ids}-name`} value={name} onChange={(e) => setName(e.target.value)} required aria-invalid={fe.name ? true : undefined} />
        {fe.name && <span className="field-error">{fe.name}</span>}
      </div>
      <div className="field">
        <label htmlFor={`${ids}-id`}>Id</label>
        <input id={`${ids}-id`} className="mono" value={id} onChange={(e) => setId(e.target.value)} aria-describedby={`${ids}-id-note`} aria-invalid={fe.id ? true : undefined} spellCheck={false} />
        <span className="field-note" id={`${ids}-id-note`}>Letters, digits, "-", "_", "."; made from the name when empty. It cannot change later.</span>
        {fe.id && <span className="field-error">{fe.id}</span>}
      </div>
      {error !== null && !fe.name && !fe.id && <ErrorNotice error={error} />}
    </Dialog>
  );
}
