/** Creating or editing one field: its key and type (length, precision), the database side (default value, NULL,
 * unique, index), the interface with its options, the display, the field's place in the form (note, width, group,
 * required, read-only, hidden), validation (a filter with its message) and conditions. A new field is one POST
 * /fields/{collection}; an edit one PATCH with only the schema keys that changed. What is typed stays on an error. */
import { useId, useMemo, useState, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { fieldsOf, relationFor, titleOf } from '../../content/schema.ts';
import { FieldInput } from '../../content/item/FieldInput.tsx';
import { infoOf, isGroup } from '../../content/item/model.ts';
import { useUnsavedGuard } from '../../content/item/unsaved.tsx';
import { FilterBuilder } from '../../content/list/FilterBuilder.tsx';
import { filterFields, type FilterField } from '../../content/list/model.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import type { SchemaData } from '../DataModelModule.tsx';
import { api, nameErrorOf, useRefreshSchema } from '../api.ts';
import {
  AUTOMATIC, DISPLAYS, GROUP_INTERFACES, TYPES, displaysFor, interfaceInfo, interfaceLabel, interfacesFor, type FieldType,
} from '../catalog.ts';
import { isSystem, nameProblem, slugName, type FullField } from '../model.ts';
import { ConditionsEditor } from './ConditionsEditor.tsx';
import { draftOf, draftProblems, metaOf, newDraft, schemaOf, suggestedDisplay, withType, type Draft } from './draft.ts';
import { OptionsEditor } from './OptionsEditor.tsx';
import { relationSummary } from './relation-summary.ts';

const NUMERIC = new Set(['integer', 'bigInteger', 'float', 'decimal']);

export function FieldPage({ data, collection, field }: { data: SchemaData; collection: string; field: string | null }) {
  const search = useSearch();
  const c = data.collections.find((x) => x.collection === collection);
  const existing = field === null ? null : (data.fields.find((f) => f.collection === collection && f.field === field) ?? null) as FullField | null;
  if (!c || c.schema === null || (field !== null && !existing)) {
    return (
      <div className="main-pane"><div className="page-message">
        <h1>{c ? 'No such field' : 'No such collection'}</h1>
        <p>{c ? `The collection “${collection}” has no field “${field}”.` : `There is no collection named “${collection}”.`} <Link href={c ? `/${encodeURIComponent(collection)}` : '/'}>Back</Link></p>
      </div></div>
    );
  }
  if (existing && isSystem(collection) && existing.meta === null) {
    return (
      <div className="main-pane"><div className="page-message">
        <h1 className="mono">{field}</h1>
        <p>This is a built-in field of a system collection: it belongs to the service and can’t be changed. <Link href={`/${encodeURIComponent(collection)}`}>Back to {collection}</Link></p>
      </div></div>
    );
  }
  const params = new URLSearchParams(search);
  const kind = params.get('kind') === 'group' ? 'group' : 'field';
  return <FieldEditor key={`${collection}/${field ?? '+'}/${kind}`} data={data} collection={collection} existing={existing} kind={kind} />;
}

function Section({ title, children, note }: { title: string; children: ReactNode; note?: string }) {
  const id = useId();
  return (
    <section className="dm-section dm-form-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {note && <p className="muted dm-section-note">{note}</p>}
      {children}
    </section>
  );
}

function FieldEditor({ data, collection, existing, kind }: { data: SchemaData; collection: string; existing: FullField | null; kind: 'field' | 'group' }) {
  const [, navigate] = useLocation();
  const refresh = useRefreshSchema();
  const id = useId();
  const initial = useMemo(() => (existing ? draftOf(existing) : newDraft(kind)), [existing, kind]);
  const [d, setD] = useState<Draft>(initial);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [nameError, setNameError] = useState<string | null>(null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]): void => setD((old) => ({ ...old, [key]: value }));

  const isNew = existing === null;
  const group = d.type === 'alias' && (kind === 'group' || (existing !== null && isGroup(existing)));
  const relational = existing ? relationFor(data.relations, collection, existing.field) : null;
  const summary = existing ? relationSummary(data, existing) : null;
  const alias = d.type === 'alias';
  const primary = Boolean(existing?.schema?.is_primary_key);
  const own = fieldsOf(data.fields, collection) as FullField[];
  const groups = own.filter((f) => isGroup(f) && f.field !== existing?.field);

  // The filter builder's fields: this collection's (and through its many-to-ones), with the new field itself.
  const filterList = useMemo<FilterField[]>(() => {
    const list = filterFields({ collections: data.collections, fields: data.fields, relations: data.relations, perms: {}, admin: true }, collection);
    if (isNew && !alias && d.field && !nameProblem(d.field, 'field') && !list.some((f) => f.path === d.field)) {
      list.unshift({ path: d.field, label: titleOf(d.field), type: d.type, via: null, related: null });
    }
    return list;
  }, [data, collection, isNew, alias, d.field, d.type]);
  const typeOf = (path: string): string | undefined => filterList.find((f) => f.path === path)?.type;

  const problems = draftProblems(d);
  const keyProblem = isNew ? nameProblem(d.field, 'field') ?? (own.some((f) => f.field.toLowerCase() === d.field.toLowerCase()) ? `This collection has a field named “${d.field}” already.` : null) : null;
  const shownKeyError = (touched && keyProblem) || nameError;

  const payload = (draft: Draft) => ({ meta: metaOf(draft, typeOf), schema: alias ? null : schemaOf(draft), type: draft.type });
  const before = useMemo(() => JSON.stringify(payload(initial)), [initial]);
  const dirty = isNew ? true : JSON.stringify(payload(d)) !== before;
  const guard = useUnsavedGuard(isNew ? d.field !== '' : dirty);

  const back = `/${encodeURIComponent(collection)}`;
  const save = async (): Promise<void> => {
    setTouched(true);
    if (busy || keyProblem || Object.keys(problems).length > 0) return;
    setBusy(true);
    setError(null);
    setNameError(null);
    const p = payload(d);
    try {
      if (isNew) {
        const sort = own.filter((f) => (f.meta?.group ?? '') === d.group).reduce((m, f) => Math.max(m, f.meta?.sort ?? 0), 0) + 1;
        await api.createField(collection, { field: d.field, type: d.type, meta: { ...p.meta, sort }, ...(alias ? {} : { schema: p.schema }) });
      } else {
        const start = JSON.parse(before) as ReturnType<typeof payload>;
        const body: Record<string, unknown> = { meta: p.meta };
        if (p.type !== start.type) body.type = p.type;
        if (p.schema && start.schema) {
          const changed = Object.fromEntries(Object.entries(p.schema).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify((start.schema as Record<string, unknown>)[k])));
          if (Object.keys(changed).length > 0) body.schema = changed;
        }
        await api.updateField(collection, existing.field, body);
      }
      await refresh();
      guard.allowNext();
      navigate(back);
    } catch (err) {
      const onName = isNew ? nameErrorOf(err, d.field, 'field') : null;
      if (onName) setNameError(onName);
      else setError(err);
      setBusy(false);
    }
  };

  const ifaces = group ? GROUP_INTERFACES : interfacesFor(d.type);
  const iface = interfaceInfo(d.interface);
  const displays = alias ? [] : displaysFor(d.type);
  const display = DISPLAYS.find((x) => x.id === d.display);
  const automatic = AUTOMATIC[d.type] ?? [];
  const title = isNew ? (group ? `New group in ${collection}` : `New field in ${collection}`) : existing.field;

  return (
    <div className="main-pane">
      <header className="page-header">
        <Link href={back} className="btn btn-ghost" aria-label={`Back to ${collection}`}>←</Link>
        <h1>{isNew ? title : <><span className="mono">{title}</span> <span className="muted dm-h1-sub">in {collection}</span></>}</h1>
        <Link href={back} className="btn">Cancel</Link>
        <button type="submit" form={`${id}-form`} className="btn btn-primary" disabled={busy || (!isNew && !dirty)}>
          {busy ? 'Saving…' : isNew ? (group ? 'Create group' : 'Create field') : 'Save field'}
        </button>
      </header>
      <div className="page-body dm-page">
        <form id={`${id}-form`} className="dm-field-form" noValidate onSubmit={(e) => { e.preventDefault(); void save(); }}>
          {error !== null && <ErrorNotice error={error} title={isNew ? 'The field was not created.' : 'The field was not saved.'} />}
          <Section title={group ? 'Group' : 'Field'}>
            <div className="form-grid">
              <div className="field">
                <label htmlFor={`${id}-key`}>Key</label>
                <input id={`${id}-key`} className="mono" value={d.field} disabled={!isNew} autoComplete="off" spellCheck={false} data-autofocus
                  aria-invalid={shownKeyError ? true : undefined} aria-describedby={`${id}-key-note${shownKeyError ? ` ${id}-key-error` : ''}`}
                  onChange={(e) => { set('field', e.target.value); setNameError(null); }}
                  onBlur={() => { setTouched(d.field !== ''); const s = slugName(d.field); if (s && s !== d.field) set('field', s); }} />
                {shownKeyError && <span className="field-error" id={`${id}-key-error`}>{shownKeyError}</span>}
                <span className="field-note" id={`${id}-key-note`}>{isNew ? 'The column’s name in the database and the API; it can’t be changed later.' : 'A field’s key can’t be changed.'}</span>
              </div>
              {!alias && (
                <div className="field">
                  <label htmlFor={`${id}-type`}>Type</label>
                  <select id={`${id}-type`} value={d.type} disabled={primary || Boolean(relational)} aria-describedby={`${id}-type-note`}
                    onChange={(e) => {
                      const type = e.target.value as FieldType;
                      setD((old) => withType(old, type, (i) => interfacesFor(type).some((x) => x.id === i)));
                    }}>
                    {TYPES.map((t) => <option key={t.type} value={t.type}>{t.label}</option>)}
                  </select>
                  <span className="field-note" id={`${id}-type-note`}>
                    {primary ? 'The primary key keeps its type.' : relational ? 'A relation’s key keeps the type of the key it points at.' : TYPES.find((t) => t.type === d.type)?.note}
                    {!isNew && !primary && !relational && existing.type !== d.type ? ' Existing values are converted; the save fails if one can’t be.' : ''}
                  </span>
                </div>
              )}
              {alias && summary && (
                <div className="field"><span className="field-label">Relation</span><span>{summary.kind} <span className="mono">{summary.text}</span></span></div>
              )}
              {d.type === 'string' && (
                <div className="field">
                  <label htmlFor={`${id}-len`}>Maximum length</label>
                  <input id={`${id}-len`} inputMode="numeric" value={d.maxLength} placeholder="255" onChange={(e) => set('maxLength', e.target.value)}
                    aria-invalid={problems.maxLength ? true : undefined} aria-describedby={problems.maxLength ? `${id}-len-error` : undefined} />
                  {problems.maxLength && <span className="field-error" id={`${id}-len-error`}>{problems.maxLength}</span>}
                </div>
              )}
              {d.type === 'decimal' && (
                <>
                  <div className="field">
                    <label htmlFor={`${id}-precision`}>Precision (digits in all)</label>
                    <input id={`${id}-precision`} inputMode="numeric" value={d.precision} placeholder="10" onChange={(e) => set('precision', e.target.value)}
                      aria-invalid={problems.precision ? true : undefined} aria-describedby={problems.precision ? `${id}-precision-error` : undefined} />
                    {problems.precision && <span className="field-error" id={`${id}-precision-error`}>{problems.precision}</span>}
                  </div>
                  <div className="field">
                    <label htmlFor={`${id}-scale`}>Scale (digits after the point)</label>
                    <input id={`${id}-scale`} inputMode="numeric" value={d.scale} placeholder="5" onChange={(e) => set('scale', e.target.value)}
                      aria-invalid={problems.scale ? true : undefined} aria-describedby={problems.scale ? `${id}-scale-error` : undefined} />
                    {problems.scale && <span className="field-error" id={`${id}-scale-error`}>{problems.scale}</span>}
                  </div>
                </>
              )}
              {automatic.length > 0 && !primary && (
                <div className="field">
                  <label htmlFor={`${id}-auto`}>Automatic value</label>
                  <select id={`${id}-auto`} value={d.automatic} onChange={(e) => set('automatic', e.target.value)} aria-describedby={`${id}-auto-note`}>
                    <option value="">None</option>
                    {automatic.map((a) => <option key={a.value} value={a.value}>{a.label}</option>)}
                  </select>
                  <span className="field-note" id={`${id}-auto-note`}>Written by the server on every create or update, whatever is sent.</span>
                </div>
              )}
            </div>
          </Section>

          {!alias && !primary && (
            <Section title="Database">
              <div className="form-grid">
                {d.type !== 'hash' && (
                  <div className="field full dm-default">
                    <DefaultValue draft={d} onChange={(v) => set('defaultValue', v)} id={`${id}-default`} />
                  </div>
                )}
                <div className="full dm-checks">
                  <label className="dm-check">
                    <input type="checkbox" checked={!d.nullable} onChange={(e) => set('nullable', !e.target.checked)} aria-describedby={`${id}-nn-note`} />
                    <span>Not null<span className="field-note dm-block" id={`${id}-nn-note`}>The database refuses an empty value (existing empty values must be filled first).</span></span>
                  </label>
                  <label className="dm-check">
                    <input type="checkbox" checked={d.unique} onChange={(e) => set('unique', e.target.checked)} aria-describedby={`${id}-unique-note`} />
                    <span>Unique<span className="field-note dm-block" id={`${id}-unique-note`}>No two items may have the same value (is_unique).</span></span>
                  </label>
                  <label className="dm-check">
                    <input type="checkbox" checked={d.indexed || d.unique} disabled={d.unique} onChange={(e) => set('indexed', e.target.checked)} aria-describedby={`${id}-index-note`} />
                    <span>Indexed<span className="field-note dm-block" id={`${id}-index-note`}>{d.unique ? 'A unique field is indexed already.' : 'Filtering and sorting by this field stay fast on a large collection (is_indexed).'}</span></span>
                  </label>
                </div>
              </div>
            </Section>
          )}

          {!(alias && !group) && (
            <Section title="Interface" note={group ? 'How the group shows its fields in the item form.' : 'The input the item form shows for this field.'}>
              <div className="form-grid">
                <div className="field">
                  <label htmlFor={`${id}-iface`}>Interface</label>
                  <select id={`${id}-iface`} value={d.interface} aria-describedby={`${id}-iface-note`}
                    onChange={(e) => setD((old) => ({ ...old, interface: e.target.value, options: e.target.value === 'select-radio' || e.target.value === 'select-dropdown' ? { choices: old.options.choices } : {} }))}>
                    {!ifaces.some((i) => i.id === d.interface) && <option value={d.interface}>{interfaceLabel(d.interface)}</option>}
                    {ifaces.map((i) => <option key={i.id} value={i.id}>{i.label}</option>)}
                  </select>
                  <span className="field-note" id={`${id}-iface-note`}>{iface?.note ?? (relational ? 'Set by the relation.' : '')}</span>
                </div>
              </div>
              {iface && <OptionsEditor specs={iface.options} values={d.options} onChange={(o) => set('options', o)} fieldType={d.type} errors={touched ? problems : {}} idPrefix={`${id}-opt`} />}
            </Section>
          )}
          {alias && !group && relational && (
            <Section title="Interface"><p className="muted">{interfaceLabel(d.interface)}, set by the relation.</p></Section>
          )}

          {displays.length > 0 && (
            <Section title="Display" note="How other clients show the value in lists (stored as display and display_options).">
              <div className="form-grid">
                <div className="field">
                  <label htmlFor={`${id}-display`}>Display</label>
                  <select id={`${id}-display`} value={d.display} onChange={(e) => setD((old) => ({ ...old, display: e.target.value, displayOptions: {} }))}>
                    <option value="">{suggestedDisplay(d) ? `None (suggested: ${DISPLAYS.find((x) => x.id === suggestedDisplay(d))?.label})` : 'None'}</option>
                    {displays.map((x) => <option key={x.id} value={x.id}>{x.label}</option>)}
                  </select>
                </div>
              </div>
              {display && <OptionsEditor specs={display.options} values={d.displayOptions} onChange={(o) => set('displayOptions', o)} fieldType={d.type} errors={{}} idPrefix={`${id}-dopt`} />}
            </Section>
          )}

          <Section title="In the form">
            <div className="form-grid">
              <div className="field full">
                <label htmlFor={`${id}-note`}>Note</label>
                <input id={`${id}-note`} value={d.note} onChange={(e) => set('note', e.target.value)} aria-describedby={`${id}-note-note`} />
                <span className="field-note" id={`${id}-note-note`}>Shown under the input, to help whoever fills it in.</span>
              </div>
              <div className="field">
                <label htmlFor={`${id}-width`}>Width</label>
                <select id={`${id}-width`} value={d.width} onChange={(e) => set('width', e.target.value as Draft['width'])}>
                  <option value="half">Half</option>
                  <option value="full">Full</option>
                  <option value="fill">Fill</option>
                </select>
              </div>
              <div className="field">
                <label htmlFor={`${id}-group`}>Group</label>
                <select id={`${id}-group`} value={d.group} onChange={(e) => set('group', e.target.value)}>
                  <option value="">None (top level)</option>
                  {groups.map((g) => <option key={g.field} value={g.field}>{g.field}</option>)}
                </select>
              </div>
              <div className="full dm-checks">
                {!group && (
                  <label className="dm-check">
                    <input type="checkbox" checked={d.required} onChange={(e) => set('required', e.target.checked)} />
                    <span>Required<span className="field-note dm-block">The item can’t be saved without a value.</span></span>
                  </label>
                )}
                {!group && (
                  <label className="dm-check">
                    <input type="checkbox" checked={d.readonly} onChange={(e) => set('readonly', e.target.checked)} />
                    <span>Read-only<span className="field-note dm-block">Shown, not editable in the form.</span></span>
                  </label>
                )}
                <label className="dm-check">
                  <input type="checkbox" checked={d.hidden} onChange={(e) => set('hidden', e.target.checked)} />
                  <span>Hidden<span className="field-note dm-block">Left out of the form (still in the API).</span></span>
                </label>
              </div>
            </div>
          </Section>

          {!group && !alias && (
            <Section title="Validation" note="A value is accepted when the item matches these conditions; otherwise the message shows on the field.">
              <FilterBuilder root={d.validation} fields={filterList} collectionLabel={collection} onChange={(v) => set('validation', v)}
                matchLabel="Valid when the item matches" emptyText="No validation: every value is accepted." />
              <div className="field dm-top-gap">
                <label htmlFor={`${id}-vmsg`}>Validation message</label>
                <input id={`${id}-vmsg`} value={d.validationMessage} placeholder="Shown on the field when its value is refused" onChange={(e) => set('validationMessage', e.target.value)} />
              </div>
            </Section>
          )}

          <Section title="Conditions" note="Rules that change the field while the item’s values match them, as the item is edited.">
            <ConditionsEditor conditions={d.conditions} onChange={(list) => set('conditions', list)} fields={filterList.filter((f) => f.path !== d.field)}
              hasChoices={d.interface === 'select-dropdown' || d.interface === 'select-radio'} choices={d.options.choices} numeric={NUMERIC.has(d.type)} collection={collection} />
          </Section>

          <div className="dm-form-foot">
            {error !== null && <ErrorNotice error={error} title={isNew ? 'The field was not created.' : 'The field was not saved.'} />}
            <span className="spacer" />
            <Link href={back} className="btn">Cancel</Link>
            <button type="submit" className="btn btn-primary" disabled={busy || (!isNew && !dirty)}>{busy ? 'Saving…' : isNew ? (group ? 'Create group' : 'Create field') : 'Save field'}</button>
          </div>
        </form>
      </div>
      {guard.dialog}
    </div>
  );
}

/** The default value, typed by the item editor's own input for the type (so it is stored in the API's format). */
function DefaultValue({ draft, onChange, id }: { draft: Draft; onChange(v: unknown): void; id: string }) {
  const [localError, setLocalError] = useState<string | null>(null);
  const withChoices = draft.interface === 'select-dropdown' || draft.interface === 'select-radio';
  // The plain input of the type (a Markdown editor for a default would be much), or the dropdown of the choices.
  const shape: FullField = {
    collection: '', field: draft.field || 'default', type: draft.type,
    meta: { interface: withChoices ? draft.interface : null, options: withChoices ? { choices: draft.options.choices } : null },
    schema: { max_length: draft.type === 'string' ? Number(draft.maxLength) || 255 : null, is_nullable: true },
  };
  const info = infoOf(shape, []);
  const labelId = `${id}-label`;
  return (
    <>
      <label htmlFor={id} id={labelId}>Default value</label>
      <span className="dm-default-row">
        {info.kind === 'none' ? <span className="muted">No default for this type.</span> : (
          <FieldInput info={info} id={id} value={draft.defaultValue} onChange={(v) => onChange(v === undefined || v === '' ? null : v)} disabled={false} required={false}
            invalid={Boolean(localError)} describedBy={`${id}-note`} isNew hasStored={false} onLocalError={setLocalError} />
        )}
        {draft.defaultValue !== null && <button type="button" className="btn btn-small" onClick={() => onChange(null)}>No default</button>}
      </span>
      <span className="field-note" id={`${id}-note`}>{draft.defaultValue === null ? 'None: a new item starts empty.' : 'A new item starts with this value.'}</span>
    </>
  );
}

