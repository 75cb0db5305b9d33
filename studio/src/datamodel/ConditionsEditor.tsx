/** A field's conditions (Directus' meta.conditions): each a name, a rule over the item's values (the filter builder)
 * and what it changes while the rule holds: hidden, read only, required. Later conditions win. */
import { FilterBuilder } from '../content/list/FilterBuilder.tsx';
import { emptyGroup, fromApiFilter, nodeId, toApiFilter, type GroupNode } from '../content/list/filter.ts';
import type { FilterField } from '../content/list/model.ts';

type Effect = 'keep' | 'yes' | 'no';

export interface ConditionDraft { id: string; name: string; rule: GroupNode; hidden: Effect; readonly: Effect; required: Effect; options?: unknown }

const toEffect = (v: unknown): Effect => (v === true ? 'yes' : v === false ? 'no' : 'keep');

export function conditionsFromApi(raw: unknown): ConditionDraft[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((c) => c && typeof c === 'object').map((c: Record<string, unknown>) => ({
    id: nodeId(), name: typeof c.name === 'string' ? c.name : '', rule: fromApiFilter(c.rule ?? null),
    hidden: toEffect(c.hidden), readonly: toEffect(c.readonly), required: toEffect(c.required), options: c.options,
  }));
}

export function conditionsToApi(drafts: ConditionDraft[], fieldType: (path: string) => string | undefined): unknown[] | null {
  const out = drafts.map((d) => {
    const c: Record<string, unknown> = { name: d.name || 'Condition', rule: toApiFilter(d.rule, fieldType) ?? {} };
    for (const k of ['hidden', 'readonly', 'required'] as const) if (d[k] !== 'keep') c[k] = d[k] === 'yes';
    if (d.options !== undefined) c.options = d.options;
    return c;
  });
  return out.length ? out : null;
}

const EFFECTS: { key: 'hidden' | 'readonly' | 'required'; label: string }[] = [
  { key: 'hidden', label: 'Hidden' }, { key: 'readonly', label: 'Read only' }, { key: 'required', label: 'Required' },
];

export function ConditionsEditor({ conditions, onChange, fields, collectionLabel, group }: {
  conditions: ConditionDraft[];
  onChange(next: ConditionDraft[]): void;
  fields: FilterField[];
  collectionLabel: string;
  group: boolean;
}) {
  const update = (i: number, patch: Partial<ConditionDraft>): void => onChange(conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <div className="dm-stack">
      <p className="field-note">While a condition's rule matches the item being edited, the field changes as it says. Later conditions win.</p>
      {conditions.length === 0 && <p className="muted">No conditions.</p>}
      {conditions.map((c, i) => (
        <fieldset key={c.id} className="dm-condition">
          <legend>Condition {i + 1}</legend>
          <div className="dm-condition-head">
            <label className="toolbar-select"><span>Name</span>
              <input value={c.name} onChange={(e) => update(i, { name: e.target.value })} aria-label={`Name of condition ${i + 1}`} placeholder="Hidden once published" />
            </label>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => onChange(conditions.filter((_, j) => j !== i))}>Remove condition {i + 1}</button>
          </div>
          <FilterBuilder root={c.rule} fields={fields} onChange={(rule) => update(i, { rule })} collectionLabel={collectionLabel} matchLabel={`Condition ${i + 1} applies when the item matches`}
            emptyText="No rule yet: add a condition on the item's values." />
          <div className="dm-effects">
            {EFFECTS.filter((e) => !(group && e.key === 'required')).map((e) => (
              <label key={e.key} className="toolbar-select"><span>{e.label}</span>
                <select value={c[e.key]} onChange={(ev) => update(i, { [e.key]: ev.target.value as Effect })} aria-label={`${e.label} under condition ${i + 1}`}>
                  <option value="keep">No change</option>
                  <option value="yes">Yes</option>
                  <option value="no">No</option>
                </select>
              </label>
            ))}
          </div>
        </fieldset>
      ))}
      <div><button type="button" className="btn btn-small" onClick={() => onChange([...conditions, { id: nodeId(), name: '', rule: emptyGroup(), hidden: 'yes', readonly: 'keep', required: 'keep' }])}>Add condition</button></div>
    </div>
  );
}
