/** A template text box (Handlebars): line numbers beside the text, the lines with errors marked, and each error
 * below it with its line, as POST /notify/validate-template reports them; "Go to line" puts the cursor there. */
import { useRef, type ReactNode } from 'react';
import type { TemplateError } from '../api.ts';

export function TemplateTextField({ id, label, value, onChange, errors, rows = 14, note, single, required, serverError }: {
  id: string;
  label: string;
  value: string;
  onChange(v: string): void;
  errors: TemplateError[] | undefined;
  rows?: number;
  note?: ReactNode;
  /** One line (a subject): an input, errors listed the same way. */
  single?: boolean;
  required?: boolean;
  /** The API's error on this field from a failed save. */
  serverError?: string;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const list = errors ?? [];
  const bad = new Set(list.map((e) => e.line));
  const lines = single ? 1 : Math.max(value.split('\n').length, rows);
  const described = [note ? `${id}-note` : '', `${id}-errors`, serverError ? `${id}-server` : ''].filter(Boolean).join(' ');

  function goTo(line: number, column = 1): void {
    if (single) {
      input.current?.focus();
      input.current?.setSelectionRange(column - 1, column - 1);
      return;
    }
    const el = area.current;
    if (!el) return;
    const starts = value.split('\n').slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    const at = Math.min(value.length, starts + column - 1);
    el.focus();
    el.setSelectionRange(at, at);
    const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 20;
    el.scrollTop = Math.max(0, (line - 3) * lineHeight);
  }

  return (
    <div className="field template-field">
      <label htmlFor={id}>{label}{required && <span aria-hidden="true" className="required">*</span>}</label>
      {single ? (
        <input ref={input} id={id} className="code" value={value} onChange={(e) => onChange(e.target.value)} spellCheck={false} autoComplete="off"
          aria-invalid={list.length || serverError ? true : undefined} aria-describedby={described} />
      ) : (
        <div className={list.length ? 'code-editor has-errors' : 'code-editor'}>
          <div ref={gutter} className="code-gutter" aria-hidden="true">
            {Array.from({ length: lines }, (_, i) => <span key={i} className={bad.has(i + 1) ? 'gutter-line bad' : 'gutter-line'}>{i + 1}</span>)}
          </div>
          <textarea ref={area} id={id} className="code" value={value} rows={rows} wrap="off" spellCheck={false}
            onChange={(e) => onChange(e.target.value)} onScroll={(e) => { if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop; }}
            aria-invalid={list.length || serverError ? true : undefined} aria-describedby={described} />
        </div>
      )}
      {note && <span className="field-note" id={`${id}-note`}>{note}</span>}
      <div id={`${id}-errors`} aria-live="polite">
        {list.length > 0 && (
          <ul className="template-errors">
            {list.map((e, i) => (
              <li key={i}>
                <span className="field-error">{single ? '' : `Line ${e.line}${e.column ? `, column ${e.column}` : ''}: `}{e.message}</span>
                {!single && <button type="button" className="btn btn-small btn-ghost" onClick={() => goTo(e.line, e.column)}>Go to line {e.line}</button>}
              </li>
            ))}
          </ul>
        )}
      </div>
      {serverError && <span className="field-error" id={`${id}-server`}>{serverError}</span>}
    </div>
  );
}
