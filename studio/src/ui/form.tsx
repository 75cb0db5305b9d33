/** Form pieces the admin screens share: a labelled input with its note and its error (tied to the input for
 * assistive technology), a labelled checkbox with a note, and how an API error is split into errors on fields
 * (what the server names, and a taken email) and one for the form. */
import { useId, type InputHTMLAttributes, type ReactNode } from 'react';
import { ApiError } from '../api/errors.ts';

export type FieldErrors = Record<string, string>;

/** The API's errors that name a field, by field (a taken email worded for people); `rest` when none does. */
export function splitError(err: unknown, known: readonly string[]): { fields: FieldErrors; rest: unknown } {
  if (!(err instanceof ApiError)) return { fields: {}, rest: err };
  const fields: FieldErrors = {};
  for (const [field, message] of Object.entries(err.fieldErrors())) if (known.includes(field)) fields[field] = message;
  if (err.code === 'RECORD_NOT_UNIQUE' && known.includes('email') && (fields.email || !err.items.some((i) => i.field))) {
    fields.email = 'Another account uses this email address.';
  }
  return Object.keys(fields).length > 0 ? { fields, rest: null } : { fields: {}, rest: err };
}

export function TextField({ label, value, onChange, error, note, className, ...rest }: {
  label: string;
  value: string;
  onChange(value: string): void;
  error?: string;
  note?: ReactNode;
  className?: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'className'>) {
  const id = useId();
  const described = [note ? `${id}-note` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field form-field${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={described} {...rest} />
      {note && <p className="field-note" id={`${id}-note`}>{note}</p>}
      {error && <p className="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}

export function CheckField({ label, checked, onChange, note, disabled }: {
  label: string;
  checked: boolean;
  onChange(value: boolean): void;
  note?: ReactNode;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="check-field">
      <input id={id} type="checkbox" checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} aria-describedby={note ? `${id}-note` : undefined} />
      <div>
        <label htmlFor={id}>{label}</label>
        {note && <p className="field-note" id={`${id}-note`}>{note}</p>}
      </div>
    </div>
  );
}

export function SelectField({ label, value, onChange, error, note, children, className }: {
  label: string;
  value: string;
  onChange(value: string): void;
  error?: string;
  note?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const id = useId();
  const described = [note ? `${id}-note` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field form-field${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={described}>{children}</select>
      {note && <p className="field-note" id={`${id}-note`}>{note}</p>}
      {error && <p className="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
