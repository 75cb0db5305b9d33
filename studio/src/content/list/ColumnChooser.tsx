/** Which fields the list shows, and in what order: the shown ones first (move up/down), then the others. Changes
 * apply at once; the list keeps at least one column. */
import { titleOf, type Field } from '../schema.ts';
import { Dialog } from '../../ui/Dialog.tsx';

export function ColumnChooser({ fields, chosen, onChange, onClose, related }: {
  fields: Field[];
  chosen: string[];
  onChange(next: string[]): void;
  onClose(): void;
  /** Field -> the related collection's title, for many-to-one fields. */
  related: Record<string, string>;
}) {
  const shown = chosen.filter((f) => fields.some((x) => x.field === f));
  const hidden = fields.filter((f) => !shown.includes(f.field));
  const move = (i: number, by: number): void => {
    const next = [...shown];
    const [item] = next.splice(i, 1);
    next.splice(i + by, 0, item);
    onChange(next);
  };
  const describe = (f: Field): string => (related[f.field] ? `${f.type} · ${related[f.field]}` : f.type);
  return (
    <Dialog title="Columns" onClose={onClose} footer={<button type="button" className="btn btn-primary" onClick={onClose}>Done</button>}>
      <p className="muted">Choose the fields shown as columns. Only these are loaded.</p>
      <fieldset className="column-set">
        <legend>Shown</legend>
        <ul className="column-list">
          {shown.map((name, i) => {
            const f = fields.find((x) => x.field === name)!;
            return (
              <li key={name}>
                <label className="column-check">
                  <input type="checkbox" checked disabled={shown.length === 1} onChange={() => onChange(shown.filter((x) => x !== name))} />
                  <span>{titleOf(name)}</span>
                  <span className="muted column-type">{describe(f)}</span>
                </label>
                <span className="column-move">
                  <button type="button" className="btn btn-ghost btn-small" aria-label={`Move ${titleOf(name)} up`} disabled={i === 0} onClick={() => move(i, -1)}>↑</button>
                  <button type="button" className="btn btn-ghost btn-small" aria-label={`Move ${titleOf(name)} down`} disabled={i === shown.length - 1} onClick={() => move(i, 1)}>↓</button>
                </span>
              </li>
            );
          })}
        </ul>
      </fieldset>
      {hidden.length > 0 && (
        <fieldset className="column-set">
          <legend>Not shown</legend>
          <ul className="column-list">
            {hidden.map((f) => (
              <li key={f.field}>
                <label className="column-check">
                  <input type="checkbox" checked={false} onChange={() => onChange([...shown, f.field])} />
                  <span>{titleOf(f.field)}</span>
                  <span className="muted column-type">{describe(f)}</span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      )}
    </Dialog>
  );
}
