/** The files of a folder (or all files): a grid of thumbnails or a table, paged and searched on the server, with
 * uploads by drag and drop or the Upload button (each with its progress), unfinished resumable uploads to continue,
 * and import from a URL. Search, page, sort and view live in the address (?q=&page=&sort=&view=). */
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { Link, useLocation, useSearchParams } from 'wouter';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { requestList } from '../api/client.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import type { FileAccess } from './access.ts';
import { ImportDialog } from './ImportDialog.tsx';
import { Thumb } from './Thumb.tsx';
import { FILE_LIST_FIELDS, fileLabel, formatBytes, typeLabel, type FileRecord, type FolderRecord } from './types.ts';
import { UploadPanel } from './UploadPanel.tsx';
import { useUploadQueue } from './upload-queue.tsx';
import { useDebounced } from './use-debounced.ts';

const PAGE_SIZE = 48;
type View = 'grid' | 'list';
const VIEW_KEY = 'studio.files.view';

const SORTS: Record<string, string> = { '-created_on': 'Newest first', created_on: 'Oldest first', title: 'Title A–Z', '-title': 'Title Z–A', '-filesize': 'Largest first', filesize: 'Smallest first' };

function storedView(): View {
  try {
    return localStorage.getItem(VIEW_KEY) === 'list' ? 'list' : 'grid';
  } catch {
    return 'grid';
  }
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function Library({ folderId, folder, access }: { folderId: string | null; folder: FolderRecord | null; access: FileAccess }) {
  const [params, setParams] = useSearchParams();
  const [, navigate] = useLocation();
  const [viewState, setViewState] = useState<View>(storedView);
  const view: View = params.get('view') === 'list' ? 'list' : params.get('view') === 'grid' ? 'grid' : viewState;
  const page = Math.max(1, Number(params.get('page')) || 1);
  const sort = SORTS[params.get('sort') ?? ''] ? params.get('sort')! : '-created_on';
  const [search, setSearch] = useState(params.get('q') ?? '');
  const term = useDebounced(search.trim(), 300);
  const queue = useUploadQueue();
  const [dragging, setDragging] = useState(false);
  const dragDepth = useRef(0);
  const fileInput = useRef<HTMLInputElement>(null);
  const [importing, setImporting] = useState(false);
  const [imported, setImported] = useState<FileRecord | null>(null);

  const set = (change: Record<string, string | null>) => setParams((p) => {
    const next = new URLSearchParams(p);
    for (const [k, v] of Object.entries(change)) {
      if (v === null || v === '') next.delete(k);
      else next.set(k, v);
    }
    return next;
  }, { replace: true });

  // The search box writes to the address once the typing pauses (and goes back to the first page).
  const urlTerm = params.get('q') ?? '';
  useEffect(() => {
    if (term !== urlTerm) set({ q: term || null, page: null });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [term]);

  const files = useQuery({
    queryKey: ['files', 'library', folderId, term, page, sort],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => requestList<FileRecord>('/files', {
      fields: [...FILE_LIST_FIELDS, 'modified_on'],
      filter: folderId ? { folder: { _eq: folderId } } : undefined,
      search: term || undefined,
      sort: sort === 'title' || sort === '-title' ? [sort, 'filename_download'] : [sort, '-created_on'].filter((s, i, a) => a.indexOf(s) === i),
      limit: PAGE_SIZE,
      page,
      meta: 'filter_count',
    }, signal),
  });
  const total = files.data?.meta.filter_count ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  function chooseView(v: View) {
    setViewState(v);
    try { localStorage.setItem(VIEW_KEY, v); } catch { /* private mode: the address keeps it */ }
    set({ view: v });
  }

  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer.types).includes('Files');
  const onDragEnter = (e: DragEvent) => {
    if (!access.upload || !hasFiles(e)) return;
    e.preventDefault();
    dragDepth.current += 1;
    setDragging(true);
  };
  const onDragOver = (e: DragEvent) => {
    if (!access.upload || !hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  };
  const onDragLeave = () => {
    dragDepth.current = Math.max(0, dragDepth.current - 1);
    if (dragDepth.current === 0) setDragging(false);
  };
  const onDrop = (e: DragEvent) => {
    if (!access.upload) return;
    e.preventDefault();
    dragDepth.current = 0;
    setDragging(false);
    queue.add(Array.from(e.dataTransfer.files), folderId);
  };

  const title = folder ? folder.name : folderId ? 'Folder' : 'All files';
  const list = files.data?.data ?? [];
  const itemHref = (f: FileRecord) => `/${f.id}`;

  return (
    <div className="main-pane library-main" onDragEnter={onDragEnter} onDragOver={onDragOver} onDragLeave={onDragLeave} onDrop={onDrop}>
      <header className="page-header">
        <h1>{title}</h1>
        {access.upload && (
          <>
            <button type="button" className="btn" onClick={() => setImporting(true)}>Import from URL</button>
            <input ref={fileInput} type="file" multiple className="visually-hidden" tabIndex={-1} aria-label={`Upload files to ${title}`}
              onChange={(e) => { queue.add(Array.from(e.target.files ?? []), folderId); e.target.value = ''; }} />
            <button type="button" className="btn btn-primary" onClick={() => fileInput.current?.click()}>Upload files</button>
          </>
        )}
      </header>
      <div className="toolbar" role="search">
        <label className="visually-hidden" htmlFor="file-search">Search files</label>
        <input id="file-search" type="search" placeholder="Search files…" value={search} onChange={(e) => setSearch(e.target.value)} />
        <label className="visually-hidden" htmlFor="file-sort">Sort files</label>
        <select id="file-sort" className="sort-select" value={sort} onChange={(e) => set({ sort: e.target.value === '-created_on' ? null : e.target.value, page: null })}>
          {Object.entries(SORTS).map(([value, label]) => <option key={value} value={value}>{label}</option>)}
        </select>
        <span className="spacer" />
        <span className="muted" aria-live="polite">{files.data ? `${total} ${total === 1 ? 'file' : 'files'}` : ''}</span>
        <div className="segmented" role="group" aria-label="View">
          <button type="button" className="btn btn-small" aria-pressed={view === 'grid'} onClick={() => chooseView('grid')}>Grid</button>
          <button type="button" className="btn btn-small" aria-pressed={view === 'list'} onClick={() => chooseView('list')}>List</button>
        </div>
      </div>
      <div className="page-body library-body">
        {imported && (
          <div className="notice notice-success" role="status">
            <span>Imported <Link href={itemHref(imported)}>{fileLabel(imported)}</Link>.</span>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => setImported(null)} aria-label="Dismiss">✕</button>
          </div>
        )}
        <UploadPanel />
        {files.error ? <ErrorNotice error={files.error} onRetry={() => void files.refetch()} /> : !files.data ? <Loading label="Loading files" /> : list.length === 0 ? (
          term ? <p className="muted empty-note">No files match “{term}”.</p> : (
            <div className="empty-drop">
              <p><strong>{folder ? 'This folder is empty.' : 'No files yet.'}</strong></p>
              {access.upload && <p>Drop files here, or use “Upload files”.</p>}
            </div>
          )
        ) : view === 'grid' ? (
          <ul className="thumb-grid library-grid" aria-label={`Files in ${title}`}>
            {list.map((f) => (
              <li key={f.id}>
                <Link href={itemHref(f)} className="thumb-card">
                  <div className="thumb-media"><Thumb file={f} size={240} /></div>
                  <div className="thumb-caption">
                    {/* The thumbnail's alt text already names the file in the link's name. */}
                    <span className="thumb-title" aria-hidden="true">{fileLabel(f)}</span>
                    <span className="thumb-meta">{typeLabel(f.type)} · {formatBytes(f.filesize)}</span>
                  </div>
                </Link>
              </li>
            ))}
          </ul>
        ) : (
          <div className="table-wrap">
            <table className="grid">
              <caption className="visually-hidden">Files in {title}</caption>
              <thead>
                <tr>
                  <th scope="col" className="thumb-cell"><span className="visually-hidden">Preview</span></th>
                  <SortHeader label="Title" field="title" sort={sort} onSort={(s) => set({ sort: s, page: null })} />
                  <th scope="col">Type</th>
                  <SortHeader label="Size" field="filesize" sort={sort} onSort={(s) => set({ sort: s, page: null })} />
                  <th scope="col">Dimensions</th>
                  <SortHeader label="Uploaded" field="created_on" sort={sort} onSort={(s) => set({ sort: s === '-created_on' ? null : s, page: null })} />
                </tr>
              </thead>
              <tbody>
                {list.map((f) => (
                  <tr key={f.id} className="clickable" onClick={(e) => { if (!(e.target as HTMLElement).closest('a')) navigate(itemHref(f)); }}>
                    <td className="thumb-cell"><span className="list-thumb"><Thumb file={f} size={64} decorative /></span></td>
                    <td><Link href={itemHref(f)} className="row-link">{fileLabel(f)}</Link></td>
                    <td>{typeLabel(f.type)}</td>
                    <td>{formatBytes(f.filesize)}</td>
                    <td>{f.width && f.height ? `${f.width} × ${f.height}` : '—'}</td>
                    <td>{f.created_on ? dateFormat.format(new Date(f.created_on)) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {files.data && total > PAGE_SIZE && (
          <nav className="pager" aria-label="Pages">
            <button type="button" className="btn btn-small" disabled={page <= 1} onClick={() => set({ page: page - 1 > 1 ? String(page - 1) : null })}>Previous page</button>
            <span>Page {page} of {pages}</span>
            <button type="button" className="btn btn-small" disabled={page >= pages} onClick={() => set({ page: String(page + 1) })}>Next page</button>
            <span className="spacer" />
            <span>{(page - 1) * PAGE_SIZE + 1}–{Math.min(total, page * PAGE_SIZE)} of {total}</span>
          </nav>
        )}
      </div>
      {dragging && <div className="drop-overlay" aria-hidden="true">Drop to upload to {title}</div>}
      <ImportDialog open={importing} folder={folderId} onClose={() => setImporting(false)} onImported={(f) => { setImporting(false); setImported(f); }} />
    </div>
  );
}

function SortHeader({ label, field, sort, onSort }: { label: string; field: string; sort: string; onSort(sort: string): void }) {
  const dir = sort === field ? 'ascending' : sort === `-${field}` ? 'descending' : undefined;
  return (
    <th scope="col" aria-sort={dir ?? 'none'}>
      <button type="button" onClick={() => onSort(dir === 'ascending' ? `-${field}` : field)}>
        {label}<span aria-hidden="true">{dir === 'ascending' ? ' ▲' : dir === 'descending' ? ' ▼' : ''}</span>
      </button>
    </th>
  );
}
