/** The fields a permission allows: all of them (including fields added later, stored as `*`), or the ones ticked.
 * Relational aliases (one-to-many and many-to-many lists) are fields here too, as Directus lists them. */
import { useId } from 'react';
import { titleOf, type Action, type Field } from '../../content/schema.ts';

export function FieldPicker({ fields, everyField, onEveryField, picked, onPicked, action }: {
  fields: Field[];
  everyField: boolean;
  onEveryField(value: boolean): void;
  picked: Set<string>;
  onPicked(next: Set<string>): void;
  action: Action;
}) {
  const id = useId();
  const toggle = (name: string, on: boolean): void => {
    const next = new Set(picked);
    if (on) next.add(name);
    else next.delete(name);
    onPicked(next);
  };
  const verb = action === 'read' ? 'read' : action === 'create' ? 'set on new items' : 'change';
  return (
    <div className="field-picker">
      <div className="check-field">
        <input id={`${id}-all`} type="checkbox" checked={everyField} onChange={(e) => onEveryField(e.target.checked)} aria-describedby={`${id}-all-note`} />
        <div>
          <label htmlFor={`${id}-all`}>All fields</label>
          <p className="field-note" id={`${id}-all-note`}>Every field they may {verb}, including fields added later.</p>
        </div>
      </div>
      {!everyField && (
        <fieldset className="field-picker-list">
          <legend>Fields they may {verb} <span className="muted">({picked.size} of {fields.length})</span></legend>
          <div className="actions-row">
            <button type="button" className="btn btn-small" onClick={() => onPicked(new Set(fields.map((f) => f.field)))}>Select all</button>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => onPicked(new Set())}>Select none</button>
          </div>
          <ul>
            {fields.map((f) => (
              <li key={f.field}>
                <label className="check-line">
                  <input type="checkbox" checked={picked.has(f.field)} onChange={(e) => toggle(f.field, e.target.checked)} />
                  <span>{titleOf(f.field)}</span>
                  <span className="muted mono field-key">{f.field}</span>
                  <span className="muted field-type">{f.schema?.is_primary_key ? 'key' : f.type}</span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      )}
    </div>
  );
}
