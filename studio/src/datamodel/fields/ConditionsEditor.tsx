/** A field's conditions (Directus' meta.conditions, applied live by the item editor, content/item/conditions.ts):
 * each has a name, a rule built with the filter builder over the item's fields, and what it changes while the rule
 * matches: hidden, read-only, required, and for a dropdown its choices. Later conditions win. */
import type { FilterField } from '../../content/list/model.ts';
import { FilterBuilder } from '../../content/list/FilterBuilder.tsx';
import { emptyGroup } from '../../content/list/filter.ts';
import { ChoicesEditor } from './OptionsEditor.tsx';
import { choiceList, conditionId, type ConditionDraft, type Tri } from './draft.ts';

const EFFECTS: { key: 'hidden' | 'readonly' | 'required'; label: string; yes: string; no: string }[] = [
  { key: 'hidden', label: 'Visibility', yes: 'Hidden', no: 'Shown' },
  { key: 'readonly', label: 'Editing', yes: 'Read-only', no: 'Editable' },
  { key: 'required', label: 'Required', yes: 'Required', no: 'Optional' },
];

export function ConditionsEditor({ conditions, onChange, fields, hasChoices, choices, numeric, collection }: {
  conditions: ConditionDraft[];
  onChange(next: ConditionDraft[]): void;
  fields: FilterField[];
  /** The interface takes choices: a condition may replace them. */
  hasChoices: boolean;
  choices: unknown;
  numeric: boolean;
  collection: string;
}) {
  const update = (id: string, patch: Partial<ConditionDraft>): void => onChange(conditions.map((c) => (c.id === id ? { ...c, ...patch } : c)));
  return (
    <div className="dm-conditions">
      {conditions.length === 0 && <p className="muted">No conditions: the field always behaves as set above.</p>}
      <ol className="dm-condition-list">
        {conditions.map((c, i) => {
          const n = i + 1;
          return (
            <li key={c.id}><div className="dm-condition" role="group" aria-label={`Condition rule ${n}`}>
              <div className="dm-condition-head">
                <div className="field dm-grow">
                  <label htmlFor={`${c.id}-name`}>Name of rule {n}</label>
                  <input id={`${c.id}-name`} value={c.name} placeholder="Hidden once published" onChange={(e) => update(c.id, { name: e.target.value })} />
                </div>
                <button type="button" className="btn btn-small btn-ghost" onClick={() => onChange(conditions.filter((x) => x.id !== c.id))}>Remove rule {n}</button>
              </div>
              <FilterBuilder root={c.rule} fields={fields} collectionLabel={collection} onChange={(rule) => update(c.id, { rule })}
                matchLabel="When the item matches" emptyText="No conditions yet: the rule always applies." />
              <div className="dm-effects">
                <span className="muted">Then:</span>
                {EFFECTS.map((e) => (
                  <label key={e.key} className="dm-effect">
                    <span>{e.label}</span>
                    <select value={c[e.key]} onChange={(ev) => update(c.id, { [e.key]: ev.target.value as Tri })} aria-label={`Rule ${n}: ${e.label}`}>
                      <option value="">Unchanged</option>
                      <option value="true">{e.yes}</option>
                      <option value="false">{e.no}</option>
                    </select>
                  </label>
                ))}
              </div>
              {hasChoices && (
                <div className="dm-condition-choices">
                  <label className="dm-check">
                    <input type="checkbox" checked={c.choices !== null}
                      onChange={(e) => update(c.id, { choices: e.target.checked ? choiceList(choices) : null })} />
                    <span>Rule {n} offers other choices</span>
                  </label>
                  {c.choices !== null && <ChoicesEditor label={`Choices while rule ${n} matches`} choices={c.choices} numeric={numeric} onChange={(list) => update(c.id, { choices: list })} />}
                </div>
              )}
            </div></li>
          );
        })}
      </ol>
      <div>
        <button type="button" className="btn btn-small"
          onClick={() => onChange([...conditions, { id: conditionId(), name: '', rule: emptyGroup(), hidden: '', readonly: '', required: '', choices: null }])}>
          + Add rule
        </button>
      </div>
    </div>
  );
}
