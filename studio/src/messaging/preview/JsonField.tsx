/** JSON typed as text (a variables_schema, the preview's sample variables): parsed as it is typed, the parse error
 * said on the field, the last value that parsed kept for whoever reads it. */
import type { ReactNode } from 'react';

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: `Not valid JSON: ${(err as Error).message.replace(/^JSON\.parse: /, '')}` };
  }
}

export function JsonField({ id, label, value, onChange, rows = 8, note, error, actions }: {
  id: string;
  label: string;
  value: string;
  onChange(v: string): void;
  rows?: number;
  note?: ReactNode;
  /** Shown instead of the parse check (the API's error from a save). */
  error?: string;
  actions?: ReactNode;
}) {
  const parsed = parseJson(value);
  const message = error ?? (parsed.ok ? null : parsed.message);
  const described = [note ? `${id}-note` : '', `${id}-error`].filter(Boolean).join(' ');
  return (
    <div className="field">
      <div className="field-head">
        <label htmlFor={id}>{label}</label>
        {actions}
      </div>
      <textarea id={id} className="code" rows={rows} value={value} onChange={(e) => onChange(e.target.value)} spellCheck={false}
        aria-invalid={message ? true : undefined} aria-describedby={described} />
      {note && <span className="field-note" id={`${id}-note`}>{note}</span>}
      <span className="field-error" id={`${id}-error`} aria-live="polite">{message}</span>
    </div>
  );
}

export const prettyJson = (v: unknown): string => (v === null || v === undefined ? '' : JSON.stringify(v, null, 2));
