/** One file: its preview, facts and metadata (title, description, tags, folder, focal point picked by clicking on
 * the image, in image pixels), replace its content (PATCH /files/{id} multipart; the id and references stay),
 * download (/assets/{id}?download) and delete. A failed save keeps what was typed and shows the error on its field. */
import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent, type MouseEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { ApiError, messageOf } from '../api/errors.ts';
import { assetUrl } from '../app/project.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import type { FileAccess } from './access.ts';
import { folderOptions, useFolders } from './folders.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { Thumb } from './Thumb.tsx';
import { fileLabel, formatBytes, hasThumbnail, isImage, typeLabel, type FileRecord } from './types.ts';
import { isAbort, replaceFile } from './upload.ts';

interface Draft {
  title: string;
  description: string;
  tags: string[];
  folder: string;
  filename_download: string;
  focal_point_x: string;
  focal_point_y: string;
}

function draftOf(f: FileRecord): Draft {
  return {
    title: f.title ?? '',
    description: f.description ?? '',
    tags: Array.isArray(f.tags) ? f.tags.map(String) : [],
    folder: f.folder ?? '',
    filename_download: f.filename_download,
    focal_point_x: f.focal_point_x === null || f.focal_point_x === undefined ? '' : String(f.focal_point_x),
    focal_point_y: f.focal_point_y === null || f.focal_point_y === undefined ? '' : String(f.focal_point_y),
  };
}

/** The changed fields as the API takes them. */
function changesOf(file: FileRecord, draft: Draft): Record<string, unknown> {
  const base = draftOf(file);
  const out: Record<string, unknown> = {};
  if (draft.title !== base.title) out.title = draft.title.trim() || null;
  if (draft.description !== base.description) out.description = draft.description || null;
  if (JSON.stringify(draft.tags) !== JSON.stringify(base.tags)) out.tags = draft.tags.length ? draft.tags : null;
  if (draft.folder !== base.folder) out.folder = draft.folder || null;
  if (draft.filename_download !== base.filename_download) out.filename_download = draft.filename_download.trim();
  const num = (v: string) => (v.trim() === '' ? null : Math.round(Number(v)));
  if (draft.focal_point_x !== base.focal_point_x) out.focal_point_x = num(draft.focal_point_x);
  if (draft.focal_point_y !== base.focal_point_y) out.focal_point_y = num(draft.focal_point_y);
  return out;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function FileDetail({ id, access, onFolder }: { id: string; access: FileAccess; onFolder?: (folder: string | null) => void }) {
  const queryClient = useQueryClient();
  const file = useQuery({ queryKey: ['files', 'one', id], queryFn: ({ signal }) => request<FileRecord>('GET', `/files/${encodeURIComponent(id)}`, { query: { fields: ['*'] }, signal }) });
  const folder = file.data?.folder ?? null;
  const loaded = Boolean(file.data);
  useEffect(() => { if (loaded) onFolder?.(folder); }, [folder, loaded, onFolder]);
  if (file.error) {
    return (
      <div className="main-pane">
        <header className="page-header"><Link href="/" className="btn btn-ghost btn-small">← File library</Link><h1>File</h1></header>
        <div className="page-body"><ErrorNotice error={file.error} onRetry={() => void file.refetch()} /></div>
      </div>
    );
  }
  if (!file.data) return <div className="main-pane"><Loading label="Loading the file" /></div>;
  return <FileEditor key={`${file.data.id}`} file={file.data} access={access} onSaved={(f) => queryClient.setQueryData(['files', 'one', id], f)} />;
}

function FileEditor({ file, access, onSaved }: { file: FileRecord; access: FileAccess; onSaved(f: FileRecord): void }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const folders = useFolders();
  const options = useMemo(() => folderOptions(folders.data), [folders.data]);
  const [draft, setDraft] = useState<Draft>(() => draftOf(file));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [saving, setSaving] = useState(false);
  const [replacing, setReplacing] = useState<{ name: string; fraction: number } | null>(null);
  const [replaceError, setReplaceError] = useState<unknown>(null);
  const [replaced, setReplaced] = useState<boolean | 'scaled' | 'cleared'>(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [previewFailed, setPreviewFailed] = useState(false);
  const replaceInput = useRef<HTMLInputElement>(null);
  const replaceAbort = useRef<AbortController | null>(null);
  const uid = useId();
  const readOnly = !access.update;

  const changes = changesOf(file, draft);
  const dirty = Object.keys(changes).length > 0;
  const canFocus = isImage(file) && hasThumbnail(file) && Boolean(file.width && file.height);
  const folderHref = file.folder ? `/folders/${file.folder}` : '/';
  const folderName = folders.data?.find((f) => f.id === file.folder)?.name;

  useEffect(() => { setPreviewFailed(false); }, [file.modified_on]);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setSaved(false);
  };

  async function save(e?: FormEvent) {
    e?.preventDefault();
    const local: Record<string, string> = {};
    if (!draft.filename_download.trim()) local.filename_download = 'A file needs a download name.';
    for (const [k, max] of [['focal_point_x', file.width], ['focal_point_y', file.height]] as const) {
      const v = draft[k].trim();
      if (v !== '' && (!/^\d+$/.test(v) || (max && Number(v) > max))) local[k] = `A whole number of pixels from 0 to ${max ?? '…'}.`;
    }
    if (Object.keys(local).length) {
      setErrors(local);
      return;
    }
    setSaving(true);
    setErrors({});
    setFormError(null);
    try {
      const updated = await request<FileRecord>('PATCH', `/files/${file.id}`, { body: changes, query: { fields: ['*'] } });
      onSaved(updated);
      setDraft(draftOf(updated));
      setSaved(true);
      void queryClient.invalidateQueries({ queryKey: ['files'], predicate: (q) => q.queryKey[1] !== 'one' });
    } catch (err) {
      const fields = err instanceof ApiError ? err.fieldErrors() : {};
      setErrors(fields);
      if (!Object.keys(fields).length) setFormError(err);
    } finally {
      setSaving(false);
    }
  }

  async function replace(newFile: File) {
    setReplaceError(null);
    setReplaced(false);
    const ctrl = new AbortController();
    replaceAbort.current = ctrl;
    setReplacing({ name: newFile.name, fraction: 0 });
    try {
      const updated = await replaceFile(file.id, newFile, { signal: ctrl.signal, onProgress: (fraction) => setReplacing({ name: newFile.name, fraction }) });
      let full = await request<FileRecord>('GET', `/files/${file.id}`, { query: { fields: ['*'] } }).catch(() => updated);
      // A focal point is in pixels of the old image: it follows the new size in proportion (or goes, without one).
      let focal: 'scaled' | 'cleared' | null = null;
      const hadFocal = full.focal_point_x != null && full.focal_point_y != null;
      if (hadFocal && (full.width !== file.width || full.height !== file.height)) {
        const scale = (v: number, from: number | null, to: number | null) => (from && to ? Math.min(to, Math.round((v * to) / from)) : null);
        const x = scale(full.focal_point_x!, file.width, full.width);
        const y = scale(full.focal_point_y!, file.height, full.height);
        full = await request<FileRecord>('PATCH', `/files/${file.id}`, { body: { focal_point_x: x === null || y === null ? null : x, focal_point_y: x === null || y === null ? null : y }, query: { fields: ['*'] } }).catch(() => full);
        focal = x === null || y === null ? 'cleared' : 'scaled';
      }
      onSaved(full);
      // The form keeps what was typed; the facts that came with the new content (name, size, focal point) follow it.
      setDraft((d) => ({
        ...d,
        filename_download: full.filename_download,
        ...(focal ? { focal_point_x: full.focal_point_x == null ? '' : String(full.focal_point_x), focal_point_y: full.focal_point_y == null ? '' : String(full.focal_point_y) } : {}),
      }));
      setReplaced(focal ?? true);
      void queryClient.invalidateQueries({ queryKey: ['files'], predicate: (q) => q.queryKey[1] !== 'one' });
    } catch (err) {
      if (!isAbort(err)) setReplaceError(err);
    } finally {
      setReplacing(null);
    }
  }

  async function remove() {
    await request('DELETE', `/files/${file.id}`);
    queryClient.removeQueries({ queryKey: ['files', 'one', file.id] });
    void queryClient.invalidateQueries({ queryKey: ['files'] });
    navigate(folderHref);
  }

  function pickFocal(e: MouseEvent<HTMLImageElement>) {
    if (readOnly || !file.width || !file.height) return;
    const rect = e.currentTarget.getBoundingClientRect();
    const fx = Math.min(1, Math.max(0, (e.clientX - rect.left) / rect.width));
    const fy = Math.min(1, Math.max(0, (e.clientY - rect.top) / rect.height));
    setDraft((d) => ({ ...d, focal_point_x: String(Math.round(fx * file.width!)), focal_point_y: String(Math.round(fy * file.height!)) }));
    setSaved(false);
    setErrors((er) => ({ ...er, focal_point_x: '', focal_point_y: '' }));
  }

  const fx = draft.focal_point_x.trim() === '' ? null : Number(draft.focal_point_x);
  const fy = draft.focal_point_y.trim() === '' ? null : Number(draft.focal_point_y);
  const showDot = canFocus && fx !== null && fy !== null && Number.isFinite(fx) && Number.isFinite(fy);
  const version = file.modified_on ? `v=${encodeURIComponent(file.modified_on)}` : '';
  const previewSrc = hasThumbnail(file) ? `${assetUrl(file.id, { width: Math.min(1600, file.width ?? 1600), height: Math.min(1600, file.height ?? 1600), fit: 'inside' })}&${version}` : `/assets/${file.id}${version ? `?${version}` : ''}`;
  const label = fileLabel(file);

  const fieldProps = (name: keyof Draft) => ({
    id: `${uid}-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `${uid}-${name}-error` : undefined,
    disabled: readOnly,
  });
  const fieldError = (name: keyof Draft) => errors[name] ? <p className="field-error" id={`${uid}-${name}-error`}>{errors[name]}</p> : null;

  return (
    <div className="main-pane">
      <header className="page-header">
        <Link href={folderHref} className="btn btn-ghost btn-small">← {folderName ?? 'File library'}</Link>
        <h1>{label}</h1>
        <a className="btn" href={`/assets/${file.id}?download`} download={file.filename_download}>Download</a>
        {access.update && (
          <>
            <input ref={replaceInput} type="file" className="visually-hidden" tabIndex={-1} aria-label={`Replace the content of ${label}`}
              onChange={(e) => { const f = e.target.files?.[0]; e.target.value = ''; if (f) void replace(f); }} />
            <button type="button" className="btn" disabled={replacing !== null} onClick={() => replaceInput.current?.click()}>Replace file…</button>
          </>
        )}
        {access.remove && <button type="button" className="btn btn-danger" onClick={() => setConfirmDelete(true)}>Delete</button>}
      </header>
      <div className="page-body">
        {replacing && (
          <div className="upload-row replace-row">
            <span className="upload-name">Replacing with {replacing.name}</span>
            <progress max={1} value={replacing.fraction} aria-label={`Replacing with ${replacing.name}`} />
            <span className="upload-state">{Math.round(replacing.fraction * 100)}%</span>
            <button type="button" className="btn btn-small" onClick={() => replaceAbort.current?.abort()}>Cancel</button>
          </div>
        )}
        {replaceError !== null && <ErrorNotice error={replaceError} title="The file was not replaced." />}
        {replaced && (
          <div className="notice notice-success" role="status">
            The file’s content was replaced. Everything that uses it now shows the new version.
            {replaced === 'scaled' ? ' The focal point was moved to the same place on the new size.' : replaced === 'cleared' ? ' The focal point was cleared.' : ''}
          </div>
        )}
        <div className="file-detail">
          <section className="file-preview" aria-label="Preview">
            <div className="preview-frame">
              {previewFailed ? <p className="muted">No preview available.</p>
                : isImage(file) ? (
                  canFocus ? (
                    <span className="focal-wrap">
                      {/* The pointer picks the focal point; the X and Y fields beside do the same from the keyboard. */}
                      <img src={previewSrc} alt={label} onClick={pickFocal} onError={() => setPreviewFailed(true)} title={readOnly ? undefined : 'Click to set the focal point'} />
                      {showDot && <span className="focal-dot" aria-hidden="true" style={{ left: `${(fx! / file.width!) * 100}%`, top: `${(fy! / file.height!) * 100}%` }} />}
                    </span>
                  ) : <img src={previewSrc} alt={label} onError={() => setPreviewFailed(true)} />
                )
                : file.type?.startsWith('video/') ? <video controls preload="metadata" src={`/assets/${file.id}`} aria-label={label} />
                : file.type?.startsWith('audio/') ? <audio controls preload="metadata" src={`/assets/${file.id}`} aria-label={label} />
                : <div className="preview-tile"><Thumb file={file} /></div>}
            </div>
            {canFocus && !readOnly && <p className="field-note">Click on the image to set its focal point: crops keep it in view.</p>}
            <dl className="file-facts">
              <dt>Type</dt><dd>{typeLabel(file.type)} <span className="muted">({file.type ?? 'unknown'})</span></dd>
              <dt>Size</dt><dd>{formatBytes(file.filesize)}</dd>
              {file.width && file.height ? <><dt>Dimensions</dt><dd>{file.width} × {file.height} px</dd></> : null}
              {file.duration ? <><dt>Duration</dt><dd>{file.duration} s</dd></> : null}
              <dt>Uploaded</dt><dd>{file.created_on ? dateFormat.format(new Date(file.created_on)) : '—'}</dd>
              {file.modified_on && <><dt>Modified</dt><dd>{dateFormat.format(new Date(file.modified_on))}</dd></>}
              <dt>Storage</dt><dd>{file.storage ?? '—'}</dd>
              <dt>ID</dt><dd><code>{file.id}</code></dd>
            </dl>
          </section>
          <form className="side-card" onSubmit={(e) => void save(e)} noValidate aria-label="File details">
            <h2>Details</h2>
            <div className="field">
              <label htmlFor={`${uid}-title`}>Title</label>
              <input {...fieldProps('title')} value={draft.title} maxLength={255} onChange={(e) => set('title', e.target.value)} />
              {fieldError('title')}
            </div>
            <div className="field">
              <label htmlFor={`${uid}-description`}>Description</label>
              <textarea {...fieldProps('description')} value={draft.description} rows={4} onChange={(e) => set('description', e.target.value)} />
              {fieldError('description')}
            </div>
            <TagsField id={`${uid}-tags`} tags={draft.tags} disabled={readOnly} error={errors.tags} onChange={(tags) => set('tags', tags)} />
            <div className="field">
              <label htmlFor={`${uid}-folder`}>Folder</label>
              <select {...fieldProps('folder')} value={draft.folder} onChange={(e) => set('folder', e.target.value)}>
                <option value="">Top level (no folder)</option>
                {options.map((o) => <option key={o.id} value={o.id}>{o.label}</option>)}
              </select>
              {fieldError('folder')}
            </div>
            <div className="field">
              <label htmlFor={`${uid}-filename_download`}>Download name</label>
              <input {...fieldProps('filename_download')} value={draft.filename_download} maxLength={255} onChange={(e) => set('filename_download', e.target.value)} />
              {fieldError('filename_download')}
            </div>
            {canFocus && (
              <fieldset className="focal-fields">
                <legend>Focal point <span className="muted">(pixels)</span></legend>
                <div className="focal-inputs">
                  <div className="field">
                    <label htmlFor={`${uid}-focal_point_x`}>Focal point X</label>
                    <input {...fieldProps('focal_point_x')} inputMode="numeric" value={draft.focal_point_x} onChange={(e) => set('focal_point_x', e.target.value)} />
                  </div>
                  <div className="field">
                    <label htmlFor={`${uid}-focal_point_y`}>Focal point Y</label>
                    <input {...fieldProps('focal_point_y')} inputMode="numeric" value={draft.focal_point_y} onChange={(e) => set('focal_point_y', e.target.value)} />
                  </div>
                  <button type="button" className="btn btn-small" disabled={readOnly || (draft.focal_point_x === '' && draft.focal_point_y === '')}
                    onClick={() => { set('focal_point_x', ''); set('focal_point_y', ''); }}>Clear</button>
                </div>
                {fieldError('focal_point_x')}
                {fieldError('focal_point_y')}
              </fieldset>
            )}
            {formError !== null && <ErrorNotice error={formError} onRetry={() => void save()} />}
            {saved && !dirty && <p className="notice notice-success" role="status">Saved.</p>}
            {!readOnly && (
              <div className="actions-row">
                <button type="submit" className="btn btn-primary" disabled={!dirty || saving}>{saving ? 'Saving…' : 'Save changes'}</button>
                <button type="button" className="btn btn-ghost" disabled={!dirty || saving} onClick={() => { setDraft(draftOf(file)); setErrors({}); setFormError(null); }}>Discard changes</button>
              </div>
            )}
          </form>
        </div>
      </div>
      {confirmDelete && (
        <ConfirmDialog onClose={() => setConfirmDelete(false)} title={`Delete “${label}”?`} confirmLabel="Delete file" onConfirm={remove}>
          <p>The file and its stored content are removed for good. Items that use it lose it.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function TagsField({ id, tags, disabled, error, onChange }: { id: string; tags: string[]; disabled: boolean; error?: string; onChange(tags: string[]): void }) {
  const [text, setText] = useState('');
  const add = (raw: string) => {
    const next = raw.split(',').map((t) => t.trim()).filter(Boolean).filter((t, i, a) => a.indexOf(t) === i && !tags.includes(t));
    if (next.length) onChange([...tags, ...next]);
    setText('');
  };
  function onKey(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault();
      add(text);
    } else if (e.key === 'Backspace' && text === '' && tags.length) {
      onChange(tags.slice(0, -1));
    }
  }
  return (
    <div className="field">
      <label htmlFor={id}>Tags</label>
      <div className="tag-input">
        {tags.map((t) => (
          <span className="tag" key={t}>{t}
            {!disabled && <button type="button" aria-label={`Remove tag ${t}`} onClick={() => onChange(tags.filter((x) => x !== t))}>×</button>}
          </span>
        ))}
        <input id={id} value={text} disabled={disabled} placeholder={tags.length ? '' : 'Add a tag and press Enter'} onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey} onBlur={() => { if (text.trim()) add(text); }} aria-describedby={error ? `${id}-error` : `${id}-note`} aria-invalid={error ? true : undefined} />
      </div>
      {error ? <p className="field-error" id={`${id}-error`}>{error}</p> : <p className="field-note" id={`${id}-note`}>Enter or comma adds a tag.</p>}
    </div>
  );
}
