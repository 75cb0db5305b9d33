/** A file or image field (an M2O to svc_files): a thumbnail for an image, the file's name otherwise, and the file
 * library's picker (choose a file, or upload one and choose it). */
import { useState } from 'react';
import { assetUrl } from '../../../app/project.tsx';
import { keyOfValue } from '../model.ts';
import { labelText } from '../FieldInput.tsx';
import { FilePickerDialog } from '../../../files/FilePickerDialog.tsx';
import type { RelationalProps } from './RelationalInput.tsx';

type FileRow = { id?: string; type?: string | null; title?: string | null; filename_download?: string | null; filesize?: number | string | null };

export function FileInput({ info, id, labelId, describedBy, value, onChange, disabled, invalid }: RelationalProps) {
  const [open, setOpen] = useState(false);
  const key = keyOfValue(value, 'id');
  const file = value && typeof value === 'object' ? value as FileRow : null;
  const image = info.field.meta?.interface === 'file-image' || Boolean(file?.type?.startsWith('image/'));
  const name = file?.title || file?.filename_download || (key !== null ? `File ${String(key)}` : '');
  return (
    <div className="file-field" aria-invalid={invalid || undefined}>
      {key !== null ? (
        <div className="item-file-preview">
          {image && file?.type?.startsWith('image/') !== false
            ? <img src={assetUrl(String(key), { width: 160, height: 160, fit: 'cover' })} alt={name} width={80} height={80} />
            : <span className="file-icon" aria-hidden="true">▤</span>}
          <span className="file-meta">
            <span className="file-name">{name}</span>
            {file?.filename_download && file.title && <span className="muted">{file.filename_download}</span>}
            {file?.type && <span className="muted">{file.type}</span>}
          </span>
        </div>
      ) : <span className="muted">No file</span>}
      {!disabled && (
        <span className="file-actions">
          <button type="button" className="btn btn-small" id={id} aria-labelledby={`${labelId} ${id}`} aria-describedby={describedBy} aria-haspopup="dialog" onClick={() => setOpen(true)}>
            {key === null ? 'Choose file' : 'Replace'}
          </button>
          {key !== null && <button type="button" className="btn btn-small btn-ghost" aria-label={`Clear ${labelText(info)}`} onClick={() => onChange(null)}>Clear</button>}
        </span>
      )}
      <FilePickerDialog open={open} accept={info.field.meta?.interface === 'file-image' ? 'image' : 'any'} onClose={() => setOpen(false)}
        onPick={(picked) => { onChange(picked); setOpen(false); requestAnimationFrame(() => document.getElementById(id)?.focus()); }} />
    </div>
  );
}
