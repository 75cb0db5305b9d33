/** One cell of the permission matrix: what the policy lets its users do with one action on one collection. No access,
 * all of it, or a custom part made of what applies to the action (as Directus offers it): the items it reaches (a
 * row filter, built with the filter builder), the fields (a field picker), validation of what is written (the filter
 * builder again) and presets (field values a write starts from). Saved as one nested write of the policy, which
 * creates, changes or deletes the cell's svc_permissions row in one transaction; a refusal shows in the dialog, which
 * keeps everything chosen. */
import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { request } from '../../api/client.ts';
import { FilterBuilder } from '../../content/list/FilterBuilder.tsx';
import { countConditions, fromApiFilter, toApiFilter, type GroupNode } from '../../content/list/filter.ts';
import { filterFields, type Schema } from '../../content/list/model.ts';
import { fieldsOf, titleOf, useAllFields, useCollections, useRelations, type Action } from '../../content/schema.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import type { PermissionRow, PolicyRecord } from '../data.ts';
import { FieldPicker } from './FieldPicker.tsx';
import { ALL_ACCESS, allFields, cellWrite, isEmptyObject, PARTS, stateOf, type CellPayload, type CellState } from './matrix.ts';
import { presetDraftOf, presetsOf, PresetsEditor, type PresetLine } from './PresetsEditor.tsx';

type Part = 'filter' | 'fields' | 'validation' | 'presets';

const PART_LABEL: Record<Part, string> = { filter: 'Items', fields: 'Fields', validation: 'Validation', presets: 'Presets' };

const LEVEL_TEXT: Record<Action, Record<CellState, string>> = {
  create: { none: 'No access', all: 'Create with any fields', custom: 'Custom' },
  read: { none: 'No access', all: 'Every item, every field', custom: 'Custom' },
  update: { none: 'No access', all: 'Every item, every field', custom: 'Custom' },
  delete: { none: 'No access', all: 'Every item', custom: 'Custom' },
  share: { none: 'No access', all: 'Every item', custom: 'Custom' },
};

export function PermissionDialog({ policy, collection, action, rows, onClose, onSaved }: {
  policy: PolicyRecord;
  collection: string;
  action: Action;
  rows: PermissionRow[];
  onClose(): void;
  onSaved(state: CellState): Promise<void>;
}) {
  const uid = useId();
  const collections = useCollections();
  const allFieldsQuery = useAllFields();
  const relations = useRelations();
  const first = rows[0] as PermissionRow | undefined;
  const parts = PARTS[action];
  const available = (Object.keys(PART_LABEL) as Part[]).filter((p) => parts[p]);
  const [level, setLevel] = useState<CellState>(() => stateOf(rows));
  const [tab, setTab] = useState<Part>(available[0]);
  const [filter, setFilter] = useState<GroupNode>(() => fromApiFilter(first?.permissions ?? null));
  const [validation, setValidation] = useState<GroupNode>(() => fromApiFilter(first?.validation ?? null));
  const [everyField, setEveryField] = useState(() => allFields(first?.fields));
  const [picked, setPicked] = useState<Set<string>>(() => new Set(allFields(first?.fields) ? [] : first!.fields));
  const [presets, setPresets] = useState<PresetLine[]>(() => presetDraftOf(first?.presets ?? null));
  const [presetErrors, setPresetErrors] = useState<Record<number, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const schema = useMemo<Schema | null>(() => (collections.data && allFieldsQuery.data && relations.data
    ? { collections: collections.data, fields: allFieldsQuery.data, relations: relations.data, perms: {}, admin: true }
    : null), [collections.data, allFieldsQuery.data, relations.data]);
  const fields = useMemo(() => fieldsOf(allFieldsQuery.data, collection), [allFieldsQuery.data, collection]);
  const filterOptions = useMemo(() => (schema ? filterFields(schema, collection) : []), [schema, collection]);
  const fieldType = (path: string): string | undefined => filterOptions.find((f) => f.path === path)?.type;
  const title = `${titleOf(collection)}: ${action}`;

  function payload(): CellPayload | null | 'invalid' {
    if (level === 'none') return null;
    if (level === 'all') return ALL_ACCESS;
    const out: CellPayload = { ...ALL_ACCESS };
    if (parts.filter) out.permissions = toApiFilter(filter, fieldType);
    if (parts.fields && !everyField) out.fields = fields.map((f) => f.field).filter((f) => picked.has(f));
    if (parts.validation) out.validation = toApiFilter(validation, fieldType);
    if (parts.presets) {
      const read = presetsOf(presets, fields);
      setPresetErrors(read.errors);
      if (Object.keys(read.errors).length > 0) {
        setTab('presets');
        return 'invalid';
      }
      out.presets = isEmptyObject(read.value) ? null : read.value;
    }
    return out;
  }

  async function save(): Promise<void> {
    if (busy) return;
    const next = payload();
    if (next === 'invalid') return;
    if (next && parts.fields && level === 'custom' && !everyField && next.fields.length === 0) {
      setTab('fields');
      setError(new Error('Pick at least one field, or tick "All fields".'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const write = cellWrite(policy.id, collection, action, rows, next);
      if (write.create.length + write.update.length + write.delete.length > 0) {
        await request('PATCH', `/policies/${encodeURIComponent(policy.id)}`, { body: { permissions: write } });
      }
      const state: CellState = next === null ? 'none' : next === ALL_ACCESS ? 'all' : stateOf([{ ...(first ?? { id: 0, policy: policy.id, collection, action }), ...next } as PermissionRow]);
      await onSaved(state);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  const counts: Record<Part, string> = {
    filter: countConditions(filter) ? ` (${countConditions(filter)})` : '',
    fields: everyField ? '' : ` (${picked.size})`,
    validation: countConditions(validation) ? ` (${countConditions(validation)})` : '',
    presets: presets.length ? ` (${presets.length})` : '',
  };
  const tabRefs = useRef<Partial<Record<Part, HTMLButtonElement | null>>>({});
  const onTabKey = (e: KeyboardEvent<HTMLDivElement>): void => {
    const i = available.indexOf(tab);
    const next = e.key === 'ArrowRight' ? available[(i + 1) % available.length] : e.key === 'ArrowLeft' ? available[(i - 1 + available.length) % available.length]
      : e.key === 'Home' ? available[0] : e.key === 'End' ? available[available.length - 1] : null;
    if (!next) return;
    e.preventDefault();
    setTab(next);
    tabRefs.current[next]?.focus();
  };

  return (
    <Dialog title={title} wide onClose={onClose} onSubmit={() => void save()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : 'Save'}</button>
      </>}>
      <div className="permission-dialog-body">
        <fieldset className="level-field">
          <legend>Access of {policy.name ? `“${policy.name}”` : 'this policy'} to {action} {titleOf(collection)}</legend>
          <div className="segmented">
            {(['none', 'all', 'custom'] as const).map((l) => (
              <label key={l} className="segment">
                <input type="radio" name={`${uid}-level`} value={l} checked={level === l} onChange={() => setLevel(l)} data-autofocus={level === l ? true : undefined} />
                <span>{LEVEL_TEXT[action][l]}</span>
              </label>
            ))}
          </div>
        </fieldset>
        {level === 'custom' && (
          <div className="custom-parts">
            <div role="tablist" aria-label="Parts of the permission" className="part-tabs" onKeyDown={onTabKey}>
              {available.map((p) => (
                <button key={p} ref={(el) => { tabRefs.current[p] = el; }} type="button" role="tab" id={`${uid}-tab-${p}`} aria-controls={`${uid}-panel-${p}`}
                  aria-selected={tab === p} tabIndex={tab === p ? 0 : -1} className="part-tab" onClick={() => setTab(p)}>
                  {PART_LABEL[p]}{counts[p]}
                </button>
              ))}
            </div>
            <div role="tabpanel" id={`${uid}-panel-${tab}`} aria-labelledby={`${uid}-tab-${tab}`} className="part-panel">
              {tab === 'filter' && (
                <>
                  <p className="field-note">
                    {action === 'read'
                      ? 'Which items the policy reads. No condition: every item.'
                      : 'Which items this applies to. Kept with the permission, as in Directus; this server applies row filters to reads only, so limit what can be changed with the read filter and validation.'}
                  </p>
                  <FilterBuilder root={filter} fields={filterOptions} onChange={setFilter} collectionLabel={titleOf(collection)}
                    matchLabel="Items that match" emptyText={`No conditions: every item of ${titleOf(collection)}.`} />
                </>
              )}
              {tab === 'fields' && (
                <FieldPicker fields={fields} everyField={everyField} onEveryField={setEveryField} picked={picked} onPicked={setPicked} action={action} />
              )}
              {tab === 'validation' && (
                <>
                  <p className="field-note">What a {action === 'create' ? 'new item' : 'change'} must satisfy to be saved; the server refuses anything else with the failed rule.</p>
                  <FilterBuilder root={validation} fields={filterOptions.filter((f) => f.via === null)} onChange={setValidation} collectionLabel={titleOf(collection)}
                    matchLabel="Accept writes that match" emptyText="No rules: anything allowed is accepted." />
                </>
              )}
              {tab === 'presets' && <PresetsEditor action={action === 'create' ? 'create' : 'update'} fields={fields} lines={presets} onChange={(next) => { setPresets(next); setPresetErrors({}); }} errors={presetErrors} />}
            </div>
          </div>
        )}
        {error !== null && <ErrorNotice error={error} />}
      </div>
    </Dialog>
  );
}
