/** Creating or editing a field: its key and type (fixed once made), string length, the interface the editor renders
 * and its options (choices for dropdowns and radios, a placeholder), display, note, width, group, read only,
 * hidden, required, default value, unique and indexed, validation (a filter the item must pass, with its message)
 * and conditions (rules that hide it, lock it, require it). A group is a field without a column holding others. */
import { useId, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { FilterBuilder } from '../content/list/FilterBuilder.tsx';
import { fromApiFilter, toApiFilter, type GroupNode } from '../content/list/filter.ts';
import { filterFields, type Schema } from '../content/list/model.ts';
import { isGroup } from '../content/item/model.ts';
import { titleOf, type Collection, type Field, type Relation } from '../content/schema.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { CheckField, SelectField, splitError, TextField, type FieldErrors } from '../ui/form.tsx';
import { ConditionsEditor, conditionsFromApi, conditionsToApi, type ConditionDraft } from './ConditionsEditor.tsx';
import { DISPLAYS, FIELD_TYPES, identifierProblem, INTERFACES, refreshSchema } from './data.ts';
import '../content/list/list.css';

interface Choice { text: string; value: string }

const NUMERIC = new Set(['integer', 'bigInteger', 'float', 'decimal']);

function defaultText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function FieldDialog({ collection, field, group: asGroup, fields, allFields, relations, collections, onClose, onSaved }: {
  collection: string;
  field: Field | null;
  group: boolean;
  fields: Field[];
  allFields: Field[];
  relations: Relation[];
  collections: Collection[];
  onClose(): void;
  onSaved(name: string, created: boolean): void;
}) {
  const client = useQueryClient();
  const id = useId();
  const creating = field === null;
  const group = asGroup || (field !== null && isGroup(field));
  const meta = field?.meta ?? {};
  const relational = field !== null && (field.type === 'alias' && !group || relations.some((r) => r.collection === collection && r.field === field.field));
  const [name, setName] = useState(field?.field ?? '');
  const [type, setType] = useState(field?.type ?? (group ? 'alias' : 'string'));
  const [length, setLength] = useState(field?.schema?.max_length ? String(field.schema.max_length) : '255');
  const [iface, setIface] = useState(meta.interface ?? (group ? 'group-detail' : INTERFACES.string[0].id));
  const [choices, setChoices] = useState<Choice[]>(() => (Array.isArray(meta.options?.choices) ? (meta.options!.choices as Choice[]).map((c) => ({ text: String(c.text ?? c.value), value: String(c.value) })) : []));
  const [placeholder, setPlaceholder] = useState(typeof meta.options?.placeholder === 'string' ? meta.options.placeholder : '');
  const [display, setDisplay] = useState(meta.display ?? '');
  const [note, setNote] = useState(meta.note ?? '');
  const [width, setWidth] = useState(meta.width ?? (group ? 'full' : 'full'));
  const [parent, setParent] = useState(meta.group ?? '');
  const [readonly, setReadonly] = useState(Boolean(meta.readonly));
  const [hidden, setHidden] = useState(Boolean(meta.hidden));
  const [required, setRequired] = useState(Boolean(meta.required));
  const [defaultValue, setDefaultValue] = useState(defaultText(field?.schema?.default_value));
  const [unique, setUnique] = useState(Boolean(field?.schema?.is_unique));
  const [indexed, setIndexed] = useState(Boolean(field?.schema?.is_indexed));
  const [validation, setValidation] = useState<GroupNode>(() => fromApiFilter(meta.validation ?? null));
  const [validationMessage, setValidationMessage] = useState(meta.validation_message ?? '');
  const [conditions, setConditions] = useState<ConditionDraft[]>(() => conditionsFromApi(meta.conditions));
  const [tab, setTab] = useState<'field' | 'validation' | 'conditions'>('field');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const schema = useMemo<Schema>(() => ({ collections, fields: allFields, relations, perms: {}, admin: true }), [collections, allFields, relations]);
  const filterOptions = useMemo(() => filterFields(schema, collection, 1), [schema, collection]);
  const fieldType = (path: string): string | undefined => filterOptions.find((f) => f.path === path)?.type;
  const interfaces = INTERFACES[type] ?? [];
  const hasChoices = iface === 'select-dropdown' || iface === 'select-radio';
  const groups = fields.filter((f) => isGroup(f) && f.field !== field?.field);
  const stored = type !== 'alias';

  function changeType(next: string): void {
    setType(next);
    const options = INTERFACES[next] ?? [];
    if (!options.some((o) => o.id === iface)) setIface(options[0]?.id ?? '');
    setDefaultValue('');
  }

  /** The default as the column takes it (numbers and yes/no as such), or a problem. */
  function typedDefault(): { value: unknown } | { problem: string } {
    if (defaultValue === '') return { value: null };
    if (NUMERIC.has(type)) {
      if (!/^-?\d+(\.\d+)?$/.test(defaultValue.trim())) return { problem: 'A number.' };
      return { value: type === 'integer' || type === 'float' ? Number(defaultValue) : defaultValue.trim() };
    }
    if (type === 'boolean') return { value: defaultValue === 'true' };
    if (type === 'json') {
      try { return { value: JSON.parse(defaultValue) }; } catch { return { problem: 'Valid JSON, such as {} or []' }; }
    }
    return { value: defaultValue };
  }

  async function save(): Promise<void> {
    const local: FieldErrors = {};
    if (creating) {
      const problem = identifierProblem(name, group ? 'group' : 'field') ?? (allFields.some((f) => f.collection === collection && f.field === name) ? `“${name}” is already a field of this collection.` : null);
      if (problem) local.field = problem;
    }
    if (type === 'string' && stored && !/^\d+$/.test(length)) local.max_length = 'A whole number of characters.';
    const dv = typedDefault();
    if ('problem' in dv) local.default_value = dv.problem;
    if (hasChoices && choices.some((c) => c.value.trim() === '')) local.choices = 'Every choice needs a value.';
    setErrors(local);
    if (Object.keys(local).length > 0) {
      if (local.field || local.max_length || local.default_value || local.choices) setTab('field');
      return;
    }
    if (busy) return;
    const options: Record<string, unknown> = { ...(meta.options ?? {}) };
    if (hasChoices) options.choices = choices.map((c) => ({ text: c.text || c.value, value: NUMERIC.has(type) ? Number(c.value) : c.value }));
    else delete options.choices;
    if (placeholder) options.placeholder = placeholder; else delete options.placeholder;
    const validationFilter = toApiFilter(validation, fieldType);
    const body: Record<string, unknown> = {
      meta: {
        interface: iface || null, options: Object.keys(options).length ? options : null, display: display || null, note: note || null, width,
        group: parent || null, readonly, hidden, required: group ? false : required,
        validation: validationFilter, validation_message: validationFilter ? validationMessage || null : null,
        conditions: conditionsToApi(conditions, fieldType),
        ...(group ? { special: ['alias', 'no-data', 'group'] } : {}),
      },
    };
    if (creating) {
      body.field = name;
      body.type = type;
    }
    if (stored && !relational) {
      const s: Record<string, unknown> = { default_value: 'value' in dv ? dv.value : null, is_unique: unique, is_indexed: indexed || unique };
      if (type === 'string') s.max_length = Number(length);
      body.schema = s;
    }
    setBusy(true);
    setError(null);
    try {
      if (creating) {
        const siblings = fields.filter((f) => (f.meta?.group ?? '') === parent);
        (body.meta as Record<string, unknown>).sort = Math.max(0, ...siblings.map((f) => f.meta?.sort ?? 0)) + 1;
        await request('POST', `/fields/${encodeURIComponent(collection)}`, { body });
      } else {
        await request('PATCH', `/fields/${encodeURIComponent(collection)}/${encodeURIComponent(field.field)}`, { body });
      }
      await refreshSchema(client);
      onSaved(creating ? name : field.field, creating);
    } catch (err) {
      const split = splitError(err, ['field', 'max_length', 'default_value']);
      setErrors(split.fields);
      setError(split.rest);
    } finally {
      setBusy(false);
    }
  }

  const title = creating ? (group ? 'Add group' : 'Add field') : `Edit ${group ? 'group' : 'field'} “${titleOf(field.field)}”`;
  const tabs = group ? (['field', 'conditions'] as const) : (['field', 'validation', 'conditions'] as const);
  const tabLabel = { field: group ? 'Group' : 'Field', validation: 'Validation', conditions: 'Conditions' };
  return (
    <Dialog title={title} onClose={onClose} onSubmit={() => void save()} wide
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : creating ? title : 'Save field'}</button>
      </>}>
      <div role="tablist" aria-label="Parts of the field" className="dm-dialog-tabs">
        {tabs.map((t) => (
          <button key={t} type="button" role="tab" id={`${id}-tab-${t}`} aria-selected={tab === t} aria-controls={`${id}-panel`} onClick={() => setTab(t)}>
            {tabLabel[t]}{t === 'conditions' && conditions.length > 0 ? ` (${conditions.length})` : ''}{t === 'validation' && toApiFilter(validation, fieldType) ? ' ✓' : ''}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${tab}`} className="dm-dialog-panel">
        {tab === 'field' && (
          <div className="form-grid">
            <TextField label="Key" value={name} onChange={(v) => { setName(v); setErrors(({ field: _f, ...rest }) => rest); }} error={errors.field} disabled={!creating}
              autoComplete="off" spellCheck={false} note={creating ? `Its name in the API; shown to editors as “${titleOf(name || 'key')}”.` : 'A field keeps its key.'} />
            {!group && (
              <SelectField label="Type" value={type} onChange={changeType} note={creating ? FIELD_TYPES.find((t) => t.type === type)?.note : 'The type is fixed once the field holds data.'}>
                {(creating ? FIELD_TYPES : [{ type, label: FIELD_TYPES.find((t) => t.type === type)?.label ?? type }]).map((t) => <option key={t.type} value={t.type}>{t.label}</option>)}
              </SelectField>
            )}
            {type === 'string' && stored && !relational && (
              <TextField label="Maximum length" type="number" min={1} value={length} onChange={setLength} error={errors.max_length} note="In characters." />
            )}
            {!group && !relational && interfaces.length > 0 && (
              <SelectField label="Interface" value={iface} onChange={setIface} note="How editors enter it.">
                {interfaces.map((i) => <option key={i.id} value={i.id}>{i.label}</option>)}
              </SelectField>
            )}
            {group && (
              <SelectField label="Shown as" value={iface} onChange={setIface}>
                <option value="group-detail">A section that folds</option>
                <option value="group-raw">A plain section</option>
              </SelectField>
            )}
            {hasChoices && (
              <fieldset className="dm-choices full">
                <legend>Choices</legend>
                {choices.map((c, i) => (
                  <div key={i} className="dm-choice">
                    <input aria-label={`Label of choice ${i + 1}`} placeholder="Label" value={c.text} onChange={(e) => setChoices(choices.map((x, j) => (j === i ? { ...x, text: e.target.value } : x)))} />
                    <input aria-label={`Value of choice ${i + 1}`} placeholder="Value" className="mono" value={c.value} onChange={(e) => setChoices(choices.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))} />
                    <button type="button" className="btn btn-small btn-ghost" aria-label={`Remove choice ${i + 1}`} onClick={() => setChoices(choices.filter((_, j) => j !== i))}>Remove</button>
                  </div>
                ))}
                <button type="button" className="btn btn-small" onClick={() => setChoices([...choices, { text: '', value: '' }])}>Add choice</button>
                {errors.choices && <p className="field-error">{errors.choices}</p>}
              </fieldset>
            )}
            {!group && (iface === 'input' || iface === 'input-multiline') && (
              <TextField label="Placeholder" value={placeholder} onChange={setPlaceholder} note="Shown in the empty input." />
            )}
            {!group && (
              <SelectField label="Display" value={display} onChange={setDisplay} note="How the value reads in lists.">
                {DISPLAYS.map((d) => <option key={d.id} value={d.id}>{d.label}</option>)}
              </SelectField>
            )}
            <TextField label="Note" className="full" value={note} onChange={setNote} note="Help shown under the input." />
            <SelectField label="Width" value={width} onChange={(v) => setWidth(v as typeof width)}>
              <option value="full">Full width</option>
              <option value="half">Half width</option>
            </SelectField>
            <SelectField label="In group" value={parent} onChange={setParent}>
              <option value="">None</option>
              {groups.map((g) => <option key={g.field} value={g.field}>{titleOf(g.field)}</option>)}
            </SelectField>
            {stored && !relational && (
              <TextField label="Default value" value={defaultValue} onChange={setDefaultValue} error={errors.default_value}
                placeholder={type === 'boolean' ? 'true or false' : type === 'json' ? '{}' : ''} note="What a new item starts with. Empty: none." />
            )}
            <div className="full dm-checks">
              {!group && <CheckField label="Required" checked={required} onChange={setRequired} note="An item cannot be saved without it." />}
              <CheckField label="Read only" checked={readonly} onChange={setReadonly} note="Shown but not editable in the Studio." />
              <CheckField label="Hidden" checked={hidden} onChange={setHidden} note="Left out of the form (the API still has it)." />
              {stored && !relational && <CheckField label="Unique" checked={unique} onChange={setUnique} note="No two items may share a value (an index is built)." />}
              {stored && !relational && <CheckField label="Indexed" checked={indexed || unique} onChange={setIndexed} disabled={unique} note="Faster filtering and sorting on this field." />}
            </div>
          </div>
        )}
        {tab === 'validation' && (
          <div className="dm-stack">
            <p className="field-note">An item is saved only when it matches these conditions (checked by the server on every write).</p>
            <FilterBuilder root={validation} fields={filterOptions} onChange={setValidation} collectionLabel={titleOf(collection)} matchLabel="Valid when it matches"
              emptyText="No rule: any value is accepted." />
            <TextField label="Message when it does not match" value={validationMessage} onChange={setValidationMessage} placeholder="Use three capital letters, like ABC." />
          </div>
        )}
        {tab === 'conditions' && (
          <ConditionsEditor conditions={conditions} onChange={setConditions} fields={filterOptions} collectionLabel={titleOf(collection)} group={group} />
        )}
      </div>
      {error !== null && <ErrorNotice error={error} title="Not saved:" />}
    </Dialog>
  );
}
