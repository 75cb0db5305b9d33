/** Choosing a file from the library (or uploading one) for a file or image field: a modal dialog with a search box
 * and the most recent files as a grid of thumbnails. The grid is a listbox: arrow keys move, Enter or a double
 * click chooses, and "Upload" adds a file from the device and chooses it. */
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { requestList } from '../api/client.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { Thumb } from './Thumb.tsx';
import { FILE_LIST_FIELDS, fileLabel, formatBytes, type FileRecord } from './types.ts';
import { isAbort, uploadFile } from './upload.ts';
import { useDebounced } from './use-debounced.ts';
import './files.css';
import { useModal } from '../ui/use-modal.ts';

const PAGE = 30;

export function FilePickerDialog(props: { open: boolean; onClose(): void; onPick(file: FileRecord): void; accept?: 'image' | 'any' }) {
  const { open, onClose, onPick, accept = 'any' } = props;
  const ref = useModal(open);
  const titleId = useId();
  const [search, setSearch] = useState('');
  const term = useDebounced(search.trim());
  const [active, setActive] = useState(0);
  const [uploading, setUploading] = useState<{ name: string; fraction: number } | null>(null);
  const [uploadError, setUploadError] = useState<unknown>(null);
  const abort = useRef<AbortController | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const grid = useRef<HTMLDivElement>(null);
  const queryClient = useQueryClient();


  useEffect(() => {
    if (!open) {
      abort.current?.abort();
      setUploadError(null);
    }
  }, [open]);

  const files = useQuery({
    queryKey: ['files', 'picker', accept, term],
    enabled: open,
    queryFn: ({ signal }) => requestList<FileRecord>('/files', {
      fields: [...FILE_LIST_FIELDS, 'modified_on'],
      sort: '-created_on',
      limit: PAGE,
      search: term || undefined,
      filter: accept === 'image' ? { type: { _starts_with: 'image/' } } : undefined,
    }, signal),
  });
  const list = files.data?.data ?? [];

  useEffect(() => setActive(0), [term, accept]);

  const optionId = (i: number) => `${titleId}-opt-${i}`;

  function columns(): number {
    const el = grid.current;
    if (!el) return 1;
    return Math.max(1, getComputedStyle(el).gridTemplateColumns.split(' ').filter(Boolean).length);
  }

  function move(next: number) {
    if (!list.length) return;
    const i = Math.max(0, Math.min(list.length - 1, next));
    setActive(i);
    document.getElementById(optionId(i))?.scrollIntoView({ block: 'nearest' });
  }

  function onGridKey(e: KeyboardEvent<HTMLDivElement>) {
    const cols = columns();
    const keys: Record<string, number> = { ArrowRight: active + 1, ArrowLeft: active - 1, ArrowDown: active + cols, ArrowUp: active - cols, Home: 0, End: list.length - 1 };
    if (e.key in keys) {
      e.preventDefault();
      move(keys[e.key]);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (list[active]) onPick(list[active]);
    }
  }

  async function onUpload(file: File) {
    setUploadError(null);
    const ctrl = new AbortController();
    abort.current = ctrl;
    setUploading({ name: file.name, fraction: 0 });
    try {
      const record = await uploadFile(file, { signal: ctrl.signal, onProgress: (fraction) => setUploading({ name: file.name, fraction }) });
      void queryClient.invalidateQueries({ queryKey: ['files'] });
      onPick(record);
    } catch (err) {
      if (!isAbort(err)) setUploadError(err);
    } finally {
      setUploading(null);
      if (input.current) input.current.value = '';
    }
  }

  const noun = accept === 'image' ? 'image' : 'file';
  const selected = list[active];

  return (
    <dialog ref={ref} className="picker-dialog" aria-labelledby={titleId} onClose={onClose} onCancel={(e) => { e.preventDefault(); onClose(); }}>
      <div className="dialog-head">
        <h2 id={titleId}>Choose {accept === 'image' ? 'an image' : 'a file'}</h2>
        <button type="button" className="btn btn-ghost icon-btn" aria-label="Close" onClick={onClose}>✕</button>
      </div>
      <div className="dialog-body">
        <div className="picker-tools">
          <label className="visually-hidden" htmlFor={`${titleId}-search`}>Search files</label>
          <input id={`${titleId}-search`} type="search" placeholder={`Search ${noun}s…`} value={search} onChange={(e) => setSearch(e.target.value)} autoFocus
            onKeyDown={(e) => { if (e.key === 'ArrowDown' && list.length) { e.preventDefault(); grid.current?.focus(); } }} />
          <input ref={input} type="file" className="visually-hidden" tabIndex={-1} aria-label={`Upload ${accept === 'image' ? 'an image' : 'a file'} from this device`}
            accept={accept === 'image' ? 'image/*' : undefined} onChange={(e) => { const f = e.target.files?.[0]; if (f) void onUpload(f); }} />
          <button type="button" className="btn" onClick={() => input.current?.click()} disabled={uploading !== null}>Upload…</button>
        </div>
        {uploading && (
          <div className="upload-row">
            <span className="upload-name">{uploading.name}</span>
            <progress max={1} value={uploading.fraction} aria-label={`Uploading ${uploading.name}`} />
            <button type="button" className="btn btn-small" onClick={() => abort.current?.abort()}>Cancel</button>
          </div>
        )}
        {uploadError !== null && <ErrorNotice error={uploadError} title="Upload failed." />}
        {files.error ? <ErrorNotice error={files.error} onRetry={() => void files.refetch()} /> : !files.data ? <Loading label={`Loading ${noun}s`} /> : list.length === 0 ? (
          <p className="muted empty-note">{term ? `No ${noun}s match “${term}”.` : `No ${noun}s yet. Upload one.`}</p>
        ) : (
          <div ref={grid} className="thumb-grid picker-grid" role="listbox" aria-label={term ? `${noun}s matching ${term}` : `Recent ${noun}s`}
            tabIndex={0} aria-activedescendant={selected ? optionId(active) : undefined} onKeyDown={onGridKey}>
            {list.map((f, i) => (
              <div key={f.id} id={optionId(i)} role="option" aria-selected={i === active} className="thumb-card"
                onClick={() => setActive(i)} onDoubleClick={() => onPick(f)}>
                <div className="thumb-media"><Thumb file={f} decorative /></div>
                <div className="thumb-caption">
                  <span className="thumb-title">{fileLabel(f)}</span>
                  <span className="thumb-meta">{f.width && f.height ? `${f.width}×${f.height} · ` : ''}{formatBytes(f.filesize)}</span>
                </div>
              </div>
            ))}
          </div>
        )}
      </div>
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="button" className="btn btn-primary" disabled={!selected} onClick={() => selected && onPick(selected)}>
          {selected ? `Choose “${fileLabel(selected)}”` : `Choose ${noun}`}
        </button>
      </div>
    </dialog>
  );
}
