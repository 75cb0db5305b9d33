/** The input of one non-relational field, by kind. Values go in and out in the API's formats (values.ts); the
 * label, note and error around it are FormField's. */
import { useEffect, useState, type KeyboardEvent } from 'react';
import type { FieldInfo } from './model.ts';
import { choicesOf } from './model.ts';
import {
  csvToList, dateToInput, inputToNumber, inputToTime, instantToLocal, localToInstant, localToWall, newUuid, numberToInput,
  timeToInput, wallToLocal,
} from './values.ts';
import { MarkdownEditor, HtmlEditor } from './RichText.tsx';

export interface InputProps {
  info: FieldInfo;
  id: string;
  value: unknown;
  onChange(value: unknown): void;
  disabled: boolean;
  required: boolean;
  invalid: boolean;
  describedBy: string | undefined;
  isNew: boolean;
  /** The stored value exists (a hash field shows "unchanged" instead of it). */
  hasStored: boolean;
  /** A value that cannot be sent as typed (JSON that does not parse): the message, or null when it is fine. */
  onLocalError(message: string | null): void;
  choicesOverride?: unknown;
}

export function FieldInput(props: InputProps) {
  const { info, id, value, onChange, disabled, required, invalid, describedBy } = props;
  const common = { id, disabled, required, 'aria-invalid': invalid || undefined, 'aria-describedby': describedBy } as const;
  const field = info.field;
  const maxLength = field.schema?.max_length ?? undefined;
  switch (info.kind) {
    case 'string':
      return <input {...common} type="text" maxLength={maxLength} value={typeof value === 'string' ? value : value == null ? '' : String(value)} onChange={(e) => onChange(e.target.value === '' && field.schema?.is_nullable !== false ? null : e.target.value)} />;
    case 'textarea':
      return <textarea {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)} />;
    case 'markdown':
      return <MarkdownEditor {...common} value={typeof value === 'string' ? value : ''} onChange={(v) => onChange(v === '' ? null : v)} />;
    case 'html':
      return <HtmlEditor {...common} value={typeof value === 'string' ? value : ''} onChange={(v) => onChange(v === '' ? null : v)} />;
    case 'number':
      return <NumberInput {...props} common={common} />;
    case 'boolean':
      return (
        <span className="switch-row">
          <input {...common} type="checkbox" role="switch" className="switch" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          <span className="muted" aria-hidden="true">{value === true ? 'On' : value === false ? 'Off' : 'Not set'}</span>
        </span>
      );
    case 'date':
      return <input {...common} type="date" value={dateToInput(value)} onChange={(e) => onChange(e.target.value || null)} />;
    case 'time':
      return <input {...common} type="time" step={1} value={timeToInput(value)} onChange={(e) => onChange(inputToTime(e.target.value))} />;
    case 'datetime':
      return <input {...common} type="datetime-local" step={1} value={wallToLocal(value)} onChange={(e) => onChange(localToWall(e.target.value))} />;
    case 'timestamp':
      return <input {...common} type="datetime-local" step={1} value={instantToLocal(value)} onChange={(e) => onChange(localToInstant(e.target.value))} />;
    case 'uuid':
      return (
        <span className="input-with-button">
          <input {...common} type="text" spellCheck={false} className="mono" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value || null)} />
          {props.isNew && !disabled && <button type="button" className="btn" onClick={() => onChange(newUuid())} aria-label={`Generate a UUID for ${labelText(info)}`}>Generate</button>}
        </span>
      );
    case 'json':
      return <JsonInput {...props} common={common} />;
    case 'csv':
      return <TagsInput {...props} />;
    case 'hash':
      return (
        <input {...common} type="password" autoComplete="new-password" value={typeof value === 'string' ? value : ''}
          placeholder={props.hasStored ? 'Unchanged (type to replace)' : ''} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)} />
      );
    case 'select': {
      const choices = choicesOf(field);
      const index = choices.findIndex((c) => c.value === value || String(c.value) === String(value));
      return (
        <select {...common} value={index < 0 ? '' : String(index)} onChange={(e) => onChange(e.target.value === '' ? null : choices[Number(e.target.value)].value)}>
          <option value="">{required ? 'Choose…' : '—'}</option>
          {choices.map((c, i) => <option key={i} value={String(i)}>{c.text}</option>)}
        </select>
      );
    }
    default:
      return <p className="muted" id={id}>This field's type ({field.type}) is not editable here.</p>;
  }
}

export function labelText(info: FieldInfo): string {
  const name = info.field.field.replace(/[_-]+/g, ' ').trim();
  return name.charAt(0).toUpperCase() + name.slice(1);
}

type Common = { id: string; disabled: boolean; required: boolean; 'aria-invalid': true | undefined; 'aria-describedby': string | undefined };

const INTEGER_RE = /^[-+]?\d+$/;
const DECIMAL_RE = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function NumberInput(props: InputProps & { common: Common }) {
  const { info, value, onChange, onLocalError, common, id } = props;
  const integer = info.field.type === 'integer' || info.field.type === 'bigInteger';
  // The text as typed ("1." or "-") stays while it is not yet a number.
  const [text, setText] = useState(numberToInput(value));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setText((t) => (String(inputToNumber(info.field, t) ?? '') === numberToInput(value) ? t : numberToInput(value)));
  }, [value, info.field]);
  const describedBy = [common['aria-describedby'], error ? `${id}-num` : null].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <input {...common} aria-describedby={describedBy} aria-invalid={common['aria-invalid'] || (error ? true : undefined)} type="text"
        inputMode={integer ? 'numeric' : 'decimal'} className="num" value={text} autoComplete="off"
        onChange={(e) => {
          const next = e.target.value;
          setText(next);
          const trimmed = next.trim();
          const bad = trimmed !== '' && !(integer ? INTEGER_RE : DECIMAL_RE).test(trimmed);
          const message = bad ? (integer ? 'Enter a whole number, like 42.' : 'Enter a number, like 4.5.') : null;
          setError(message);
          onLocalError(message);
          if (!bad) onChange(inputToNumber(info.field, next));
        }} />
      {error && <span className="field-error" id={`${id}-num`}>{error}</span>}
    </>
  );
}

function JsonInput(props: InputProps & { common: Common }) {
  const { value, onChange, onLocalError, common, id } = props;
  const format = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v, null, 2));
  const [text, setText] = useState(() => format(value));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    // A value changed from outside (a reload, a revert) replaces the text unless the text already says it.
    setText((t) => {
      try {
        if (t.trim() !== '' && JSON.stringify(JSON.parse(t)) === JSON.stringify(value)) return t;
      } catch { /* the text does not parse: it is what the person is typing, keep it unless the value changed */ }
      if (t.trim() === '' && (value === null || value === undefined)) return t;
      return format(value);
    });
  }, [value]);
  const describedBy = [common['aria-describedby'], error ? `${id}-json` : null].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <textarea {...common} aria-describedby={describedBy} aria-invalid={common['aria-invalid'] || (error ? true : undefined)} className="code" spellCheck={false} rows={6} value={text}
        onChange={(e) => {
          const next = e.target.value;
          setText(next);
          if (next.trim() === '') { setError(null); onLocalError(null); onChange(null); return; }
          try {
            const parsed: unknown = JSON.parse(next);
            setError(null); onLocalError(null); onChange(parsed);
          } catch (err) {
            const message = `Not valid JSON: ${(err as Error).message}`;
            setError(message); onLocalError(message);
          }
        }} />
      {error && <span className="field-error" id={`${id}-json`}>{error}</span>}
    </>
  );
}

function TagsInput(props: InputProps) {
  const { info, id, value, onChange, disabled, invalid, describedBy } = props;
  const tags = csvToList(value);
  const [draft, setDraft] = useState('');
  const add = () => {
    const t = draft.trim().replace(/,/g, ' ');
    if (!t) return;
    if (!tags.includes(t)) onChange([...tags, t]);
    setDraft('');
  };
  const remove = (i: number) => {
    const next = tags.filter((_, j) => j !== i);
    onChange(next.length ? next : null);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === ',') { e.preventDefault(); add(); }
    else if (e.key === 'Backspace' && draft === '' && tags.length) remove(tags.length - 1);
  };
  return (
    <div className={`tags${disabled ? ' disabled' : ''}`}>
      <ul className="tag-list" aria-label={`${labelText(info)} values`}>
        {tags.map((t, i) => (
          <li key={`${t}-${i}`} className="tag-chip">
            <span>{t}</span>
            {!disabled && (
              <button type="button" className="tag-remove" aria-label={`Remove ${t}`}
                onClick={() => remove(i)} onKeyDown={(e) => { if (e.key === 'Delete' || e.key === 'Backspace') { e.preventDefault(); remove(i); } }}>×</button>
            )}
          </li>
        ))}
      </ul>
      {!disabled && (
        <input id={id} type="text" value={draft} aria-invalid={invalid || undefined} aria-describedby={describedBy}
          placeholder="Type and press Enter" onChange={(e) => setDraft(e.target.value)} onKeyDown={onKey} onBlur={add} />
      )}
      {disabled && <input id={id} type="text" disabled value={tags.join(', ')} aria-describedby={describedBy} readOnly />}
    </div>
  );
}
