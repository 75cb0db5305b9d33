/** The options of an interface or a display, one control per option (catalog.ts says which), and the choices of a
 * dropdown: value and text per row, added, removed and reordered. */
import { useId } from 'react';
import type { Choice } from '../../content/item/model.ts';
import type { OptionSpec } from '../catalog.ts';
import { choiceList } from './draft.ts';

const NUMERIC = new Set(['integer', 'bigInteger', 'float', 'decimal']);

export function OptionsEditor({ specs, values, onChange, fieldType, errors, idPrefix }: {
  specs: readonly OptionSpec[];
  values: Record<string, unknown>;
  onChange(next: Record<string, unknown>): void;
  fieldType: string;
  errors: Record<string, string>;
  idPrefix: string;
}) {
  const set = (key: string, value: unknown): void => onChange({ ...values, [key]: value });
  if (specs.length === 0) return null;
  return (
    <div className="form-grid dm-options">
      {specs.map((o) => {
        const id = `${idPrefix}-${o.key}`;
        const noteId = o.note ? `${id}-note` : undefined;
        switch (o.kind) {
          case 'text':
            return (
              <div key={o.key} className="field">
                <label htmlFor={id}>{o.label}</label>
                <input id={id} value={typeof values[o.key] === 'string' ? values[o.key] as string : ''} onChange={(e) => set(o.key, e.target.value)} aria-describedby={noteId} />
                {o.note && <span className="field-note" id={noteId}>{o.note}</span>}
              </div>
            );
          case 'boolean':
            return (
              <label key={o.key} className="dm-check dm-align-end">
                <input type="checkbox" checked={values[o.key] === true} onChange={(e) => set(o.key, e.target.checked)} />
                <span>{o.label}</span>
              </label>
            );
          case 'select':
            return (
              <div key={o.key} className="field">
                <label htmlFor={id}>{o.label}</label>
                <select id={id} value={typeof values[o.key] === 'string' ? values[o.key] as string : ''} onChange={(e) => set(o.key, e.target.value)}>
                  <option value="">Default</option>
                  {o.values?.map((v) => <option key={v.value} value={v.value}>{v.label}</option>)}
                </select>
              </div>
            );
          case 'choices':
            return (
              <div key={o.key} className="field full">
                <ChoicesEditor label={o.label} note={o.note} choices={choiceList(values[o.key])} numeric={NUMERIC.has(fieldType)}
                  onChange={(c) => set(o.key, c)} error={errors.choices} />
              </div>
            );
        }
      })}
    </div>
  );
}

export function ChoicesEditor({ label, note, choices, numeric, onChange, error }: {
  label: string;
  note?: string;
  choices: Choice[];
  /** Values are numbers (a number field's choices). */
  numeric: boolean;
  onChange(next: Choice[]): void;
  error?: string;
}) {
  const id = useId();
  const update = (i: number, patch: Partial<{ value: string; text: string }>): void => {
    onChange(choices.map((c, j) => {
      if (j !== i) return c;
      const value = patch.value !== undefined ? (numeric && patch.value.trim() !== '' && !Number.isNaN(Number(patch.value)) ? Number(patch.value) : patch.value) : c.value;
      return { value, text: patch.text ?? c.text };
    }));
  };
  const move = (i: number, by: number): void => {
    const next = [...choices];
    const [c] = next.splice(i, 1);
    next.splice(i + by, 0, c);
    onChange(next);
  };
  return (
    <div role="group" aria-labelledby={`${id}-label`} aria-describedby={[note ? `${id}-note` : '', error ? `${id}-error` : ''].join(' ').trim() || undefined} className="dm-choices">
      <span className="field-label" id={`${id}-label`}>{label}</span>
      {note && <span className="field-note" id={`${id}-note`}>{note}</span>}
      {choices.length > 0 && (
        <ol className="dm-choice-list">
          {choices.map((c, i) => (
            <li key={i} className="dm-choice">
              <input aria-label={`Choice ${i + 1} value`} className="mono" value={String(c.value ?? '')} placeholder="value" onChange={(e) => update(i, { value: e.target.value })}
                inputMode={numeric ? 'decimal' : undefined} />
              <input aria-label={`Choice ${i + 1} text`} value={c.text} placeholder="Text shown" onChange={(e) => update(i, { text: e.target.value })} />
              <button type="button" className="btn btn-ghost icon-btn btn-small" aria-label={`Move choice ${i + 1} up`} disabled={i === 0} onClick={() => move(i, -1)}>↑</button>
              <button type="button" className="btn btn-ghost icon-btn btn-small" aria-label={`Move choice ${i + 1} down`} disabled={i === choices.length - 1} onClick={() => move(i, 1)}>↓</button>
              <button type="button" className="btn btn-ghost icon-btn btn-small" aria-label={`Remove choice ${i + 1}`} onClick={() => onChange(choices.filter((_, j) => j !== i))}>✕</button>
            </li>
          ))}
        </ol>
      )}
      <div><button type="button" className="btn btn-small" onClick={() => onChange([...choices, { value: '', text: '' }])}>+ Add choice</button></div>
      {error && <span className="field-error" id={`${id}-error`}>{error}</span>}
    </div>
  );
}
