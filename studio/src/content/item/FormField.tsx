/** One field of the form: its label (with a required mark), the input, the note and the error, tied together with
 * for/aria-describedby/aria-invalid so a screen reader hears all three. Relational fields label a group instead. */
import type { ReactNode } from 'react';
import type { FieldInfo } from './model.ts';
import { labelText } from './FieldInput.tsx';

export function fieldDomId(info: FieldInfo, prefix = 'f-'): string {
  return `${prefix}${info.field.field}`;
}

export function FormField({ info, required, note, error, full, group, idPrefix, children }: {
  info: FieldInfo;
  required: boolean;
  note: string | null | undefined;
  error: string | undefined;
  full: boolean;
  /** The input is a group of controls (a related list, a tags input): label it with aria-labelledby. */
  group?: boolean;
  /** Ids are prefixed (a nested form in a dialog must not reuse the page form's ids). */
  idPrefix?: string;
  children: (ids: { id: string; describedBy: string | undefined; labelId: string }) => ReactNode;
}) {
  const id = fieldDomId(info, idPrefix);
  const noteId = note ? `${id}-note` : null;
  const errorId = error ? `${id}-error` : null;
  const describedBy = [errorId, noteId].filter(Boolean).join(' ') || undefined;
  const labelId = `${id}-label`;
  const label = (
    <>
      {labelText(info)}
      {required && <span className="required-mark" aria-hidden="true"> *</span>}
      {required && <span className="visually-hidden"> (required)</span>}
    </>
  );
  return (
    <div className={`field${full ? ' full' : ''}${error ? ' has-error' : ''}`} data-field={info.field.field}>
      {group ? <span className="field-label" id={labelId}>{label}</span> : <label htmlFor={id} id={labelId} className="field-label">{label}</label>}
      {children({ id, describedBy, labelId })}
      {error && <span className="field-error" id={errorId!}>{error}</span>}
      {note && <span className="field-note" id={noteId!}>{note}</span>}
    </div>
  );
}
