/** An image setting (logo, sign-in foreground and background): its thumbnail, "Choose…" from the file library (or an
 * upload there), and "Remove". */
import { useId, useState } from 'react';
import { preloadable } from '../app/lazy.ts';
import { assetUrl } from '../app/project.tsx';

type PickerProps = Parameters<typeof import('../files/FilePickerDialog.tsx').FilePickerDialog>[0];
const FilePickerDialog = preloadable<PickerProps>(() => import('../files/FilePickerDialog.tsx').then((m) => ({ default: m.FilePickerDialog })), null);

export function FileChoice({ label, value, onChange, note, error }: {
  label: string;
  value: string | null;
  onChange(id: string | null): void;
  note?: string;
  error?: string;
}) {
  const id = useId();
  const [picking, setPicking] = useState(false);
  return (
    <div className="field form-field" role="group" aria-labelledby={`${id}-label`}>
      <span className="field-label" id={`${id}-label`}>{label}</span>
      <div className="file-choice">
        <div className="file-choice-thumb">
          {value ? <img src={assetUrl(value, { width: 160, height: 96, fit: 'inside' })} alt={`${label}: the chosen image`} /> : <span className="muted">None</span>}
        </div>
        <div className="actions-row">
          <button type="button" className="btn btn-small" onClick={() => setPicking(true)} aria-label={`Choose ${label.toLowerCase()}`}>Choose…</button>
          {value && <button type="button" className="btn btn-small btn-ghost" onClick={() => onChange(null)} aria-label={`Remove ${label.toLowerCase()}`}>Remove</button>}
        </div>
      </div>
      {note && <p className="field-note">{note}</p>}
      {error && <p className="field-error">{error}</p>}
      {picking && (
        <FilePickerDialog open accept="image" onClose={() => setPicking(false)} onPick={(f) => { onChange(f.id); setPicking(false); }} />
      )}
    </div>
  );
}
