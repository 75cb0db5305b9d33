/** Uploads in progress (a named progress bar each, cancel, retry) and unfinished resumable uploads from an earlier
 * visit: picking the same file again continues where the server stopped. */
import { useRef, useState } from 'react';
import { Link } from 'wouter';
import { messageOf } from '../api/errors.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { fileLabel, formatBytes } from './types.ts';
import { useUploadQueue, type UploadItem } from './upload-queue.tsx';
import { matchesPending, type PendingUpload } from './upload.ts';

export function UploadPanel() {
  const queue = useUploadQueue();
  if (!queue.items.length && !queue.pending.length && !queue.pendingError) return null;
  return (
    <section className="upload-list" aria-label="Uploads">
      {queue.pendingError !== null && <ErrorNotice error={queue.pendingError} title="Could not check unfinished uploads." onRetry={queue.reloadPending} />}
      {queue.pending.map((p) => <PendingRow key={p.key} pending={p} />)}
      {queue.items.map((it) => <UploadRow key={it.key} item={it} />)}
    </section>
  );
}

function UploadRow({ item }: { item: UploadItem }) {
  const queue = useUploadQueue();
  const name = item.file.name;
  const state = item.status === 'queued' ? 'Waiting'
    : item.status === 'uploading' ? `${Math.round(item.fraction * 100)}% of ${formatBytes(item.file.size)}`
    : item.status === 'done' ? 'Uploaded'
    : 'Failed';
  return (
    <div className={`upload-row ${item.status === 'failed' ? 'failed' : item.status === 'done' ? 'done' : ''}`}>
      <span className="upload-name">
        {item.status === 'done' && item.record ? <Link href={`/${item.record.id}`}>{fileLabel(item.record)}</Link> : name}
        {item.status === 'failed' && <span className="field-error upload-error" role="alert"> — {messageOf(item.error)}</span>}
      </span>
      <progress max={1} value={item.status === 'done' ? 1 : item.fraction} aria-label={`Uploading ${name}`} />
      <span className="upload-state">{state}</span>
      <span className="actions-row">
        {item.status === 'failed' && <button type="button" className="btn btn-small" onClick={() => queue.retry(item.key)} aria-label={`Retry ${name}`}>Retry</button>}
        {(item.status === 'queued' || item.status === 'uploading') && <button type="button" className="btn btn-small" onClick={() => queue.cancel(item.key)} aria-label={`Cancel ${name}`}>Cancel</button>}
        {(item.status === 'failed' || item.status === 'done') && <button type="button" className="btn btn-small btn-ghost" onClick={() => queue.dismiss(item.key)} aria-label={`Dismiss ${name}`}>✕</button>}
      </span>
    </div>
  );
}

function PendingRow({ pending }: { pending: PendingUpload }) {
  const queue = useUploadQueue();
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [discardError, setDiscardError] = useState<unknown>(null);
  const got = pending.offset !== null ? `${formatBytes(pending.offset)} of ${formatBytes(pending.size)} uploaded` : `${formatBytes(pending.size)}`;
  return (
    <div className="notice notice-warning pending-row" role="group" aria-label={`Unfinished upload of ${pending.filename}`}>
      <span className="grow">
        <strong>Unfinished upload: {pending.filename}</strong> <span className="muted">({got})</span>
        <br />
        <span className="field-note">Pick the same file again to continue where it stopped.</span>
        {error && <span className="field-error" role="alert"><br />{error}</span>}
      </span>
      {pending.offset !== null && <progress max={pending.size} value={pending.offset} aria-label={`Uploaded so far of ${pending.filename}`} />}
      <input ref={input} type="file" className="visually-hidden" tabIndex={-1} aria-label={`Choose ${pending.filename} again to continue its upload`}
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (!file) return;
          if (!matchesPending(file, pending)) {
            setError(`That is not the same file: pick ${pending.filename} (${formatBytes(pending.size)}).`);
            return;
          }
          setError(null);
          queue.resume(pending, file);
        }} />
      <button type="button" className="btn btn-small btn-primary" onClick={() => input.current?.click()}>Continue upload…</button>
      <button type="button" className="btn btn-small" onClick={() => { setDiscardError(null); queue.discard(pending).catch(setDiscardError); }}>Discard</button>
      {discardError !== null && <ErrorNotice error={discardError} />}
    </div>
  );
}
