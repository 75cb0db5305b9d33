/** Import from a URL (POST /files/import {url, data}): the server fetches the file; its error shows on the field. */
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { ApiError, messageOf } from '../api/errors.ts';
import { Modal } from './Modal.tsx';
import type { FileRecord } from './types.ts';

export function ImportDialog({ open, folder, onClose, onImported }: { open: boolean; folder: string | null; onClose(): void; onImported(file: FileRecord): void }) {
  const [url, setUrl] = useState('');
  const [title, setTitle] = useState('');
  const [errors, setErrors] = useState<{ url?: string; title?: string; form?: unknown }>({});
  const [busy, setBusy] = useState(false);
  const queryClient = useQueryClient();

  useEffect(() => {
    if (open) setErrors({});
  }, [open]);

  async function submit() {
    const value = url.trim();
    if (!/^https?:\/\/\S+$/i.test(value)) {
      setErrors({ url: 'Enter a web address starting with http:// or https://.' });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      const data: Record<string, unknown> = {};
      if (folder) data.folder = folder;
      if (title.trim()) data.title = title.trim();
      const file = await request<FileRecord>('POST', '/files/import', { body: { url: value, data } });
      void queryClient.invalidateQueries({ queryKey: ['files'] });
      setUrl('');
      setTitle('');
      onImported(file);
    } catch (err) {
      const fields = err instanceof ApiError ? err.fieldErrors() : {};
      if (fields.title) setErrors({ title: fields.title });
      // A 503 here is the remote address failing (unreachable, an error status): the server's sentence says which.
      else setErrors({ url: fields.url ?? (err instanceof ApiError && err.status === 503 && err.message ? err.message : messageOf(err)) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal open={open} onClose={onClose} title="Import a file from a URL" className="import-dialog" onSubmit={() => void submit()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Importing…' : 'Import'}</button>
      </>}>
      <div className="field">
        <label htmlFor="import-url">File URL</label>
        <input id="import-url" type="url" inputMode="url" autoFocus placeholder="https://example.com/photo.jpg" value={url} onChange={(e) => setUrl(e.target.value)}
          aria-invalid={errors.url ? true : undefined} aria-describedby={errors.url ? 'import-url-error' : 'import-url-note'} />
        {errors.url ? <p className="field-error" id="import-url-error" role="alert">{errors.url}</p>
          : <p className="field-note" id="import-url-note">The server downloads the file and adds it to the library.</p>}
      </div>
      <div className="field">
        <label htmlFor="import-title">Title <span className="muted">(optional)</span></label>
        <input id="import-title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={255}
          aria-invalid={errors.title ? true : undefined} aria-describedby={errors.title ? 'import-title-error' : undefined} />
        {errors.title && <p className="field-error" id="import-title-error" role="alert">{errors.title}</p>}
      </div>
    </Modal>
  );
}
