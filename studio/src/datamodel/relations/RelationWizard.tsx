/** The relation wizards: many-to-one, one-to-many, many-to-many and many-to-any, each one dialog and one submit.
 * The form names what will be made (fields, the junction, the relations); the steps run in order and, when one
 * fails, those done are removed again (plan.ts), with the server's error on the name it was about. */
import { useId, useState } from 'react';
import { fieldsOf } from '../../content/schema.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import type { SchemaData } from '../DataModelModule.tsx';
import { nameErrorOf, runSteps, StepError, useRefreshSchema } from '../api.ts';
import { stepTitle } from '../collections/CreateCollectionDialog.tsx';
import { isSystem, nameProblem, primaryOf, slugName, type FullField } from '../model.ts';
import { planM2A, planM2M, planM2O, planO2M, type OnDelete, type PlannedStep, type RelationKind } from './plan.ts';

export type { RelationKind };

const TITLES: Record<RelationKind, string> = {
  m2o: 'Create a many-to-one relation', o2m: 'Create a one-to-many relation', m2m: 'Create a many-to-many relation', m2a: 'Create a many-to-any relation',
};

const INTROS: Record<RelationKind, (here: string) => string> = {
  m2o: (here) => `Each item of ${here} points at one item of another collection (an article’s author).`,
  o2m: (here) => `Each item of ${here} gets the list of items of another collection that point back at it (a post’s comments).`,
  m2m: (here) => `Each item of ${here} links to any number of items of another collection, and each of those to any number of items of ${here} (articles and tags), through a junction collection.`,
  m2a: (here) => `Each item of ${here} links to items of several collections in one ordered list (page sections of different kinds), through a junction collection.`,
};

/** A guess at a field name for a collection's items ("authors" → "author"). */
function singular(name: string): string {
  const base = name.replace(/^svc_/, '');
  return base.endsWith('ies') ? `${base.slice(0, -3)}y` : base.endsWith('s') && !base.endsWith('ss') ? base.slice(0, -1) : base;
}

export function RelationWizard({ kind, data, collection: here, onClose }: { kind: RelationKind; data: SchemaData; collection: string; onClose(): void }) {
  const refresh = useRefreshSchema();
  const id = useId();
  const hereFields = fieldsOf(data.fields, here) as FullField[];
  const hereGroup = data.collections.find((c) => c.collection === here)?.meta?.group ?? null;
  const withKey = (name: string): boolean => Boolean(primaryOf(fieldsOf(data.fields, name) as FullField[]));
  const userCollections = data.collections.filter((c) => c.schema !== null && !isSystem(c.collection) && withKey(c.collection)).map((c) => c.collection);
  const targets = kind === 'm2o' || kind === 'm2m' ? [...userCollections, ...['svc_users', 'svc_files'].filter(withKey)] : userCollections;

  const [related, setRelated] = useState('');
  const [field, setField] = useState('');
  const [fieldTouched, setFieldTouched] = useState(false);
  const [reverseOn, setReverseOn] = useState(false);
  const [reverse, setReverse] = useState(here);
  const [foreignKey, setForeignKey] = useState(`${singular(here)}_id`);
  const [sortOn, setSortOn] = useState(false);
  const [sortField, setSortField] = useState('sort');
  const [onDelete, setOnDelete] = useState<OnDelete>('SET NULL');
  const [junction, setJunction] = useState('');
  const [junctionTouched, setJunctionTouched] = useState(false);
  const [allowed, setAllowed] = useState<string[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});

  const relatedFields = related ? fieldsOf(data.fields, related) as FullField[] : [];
  const self = related === here;
  const hereKey = `${here}_id`;
  const relatedKey = self ? `related_${related}_id` : `${related.replace(/^svc_/, '')}_id`;
  const defaultJunction = kind === 'm2a' ? `${here}_${field || 'items'}` : `${here}_${related.replace(/^svc_/, '') || 'related'}`;
  const junctionName = junctionTouched ? junction : defaultJunction;
  const fieldName = fieldTouched ? field : related && kind !== 'm2a' ? (kind === 'm2o' ? singular(related) : related.replace(/^svc_/, '')) : field;

  const pickRelated = (name: string): void => {
    setRelated(name);
    setServerErrors({});
  };

  // What the form would make, and what is wrong with it before asking the server.
  const problems: Record<string, string> = {};
  const fieldTaken = (collection: string, name: string): boolean => (fieldsOf(data.fields, collection) as FullField[]).some((f) => f.field.toLowerCase() === name.toLowerCase());
  const checkName = (key: string, collection: string, name: string): void => {
    const p = nameProblem(name, 'field') ?? (fieldTaken(collection, name) ? `${collection} has a field named “${name}” already.` : null);
    if (p) problems[key] = p;
  };
  if (kind !== 'm2a' && !related) problems.related = 'Choose the related collection.';
  checkName('field', here, fieldName);
  if (kind === 'm2o' && reverseOn && related) {
    checkName('reverse', related, reverse);
    if (self && reverse === fieldName) problems.reverse = 'Use another name than the field’s.';
  }
  if (kind === 'o2m' && related) {
    checkName('foreignKey', related, foreignKey);
    if (self && foreignKey === fieldName) problems.foreignKey = 'Use another name than the list’s.';
    if (sortOn) {
      const existing = relatedFields.find((f) => f.field === sortField);
      if (nameProblem(sortField, 'field')) problems.sortField = nameProblem(sortField, 'field')!;
      else if (existing && !['integer', 'bigInteger'].includes(existing.type)) problems.sortField = `${related}.${sortField} exists and is not a whole number.`;
      else if (sortField === foreignKey) problems.sortField = 'Use another name than the key’s.';
    }
  }
  if (kind === 'm2m' && reverseOn && related) {
    checkName('reverse', related, reverse);
    if (self && reverse === fieldName) problems.reverse = 'Use another name than the field’s.';
  }
  if (kind === 'm2m' || kind === 'm2a') {
    const p = nameProblem(junctionName, 'collection') ?? (data.collections.some((c) => c.collection.toLowerCase() === junctionName.toLowerCase()) ? `A collection named “${junctionName}” exists already.` : null);
    if (p) problems.junction = p;
    if (sortOn && (nameProblem(sortField, 'field') || ['id', hereKey, relatedKey, 'item', 'collection'].includes(sortField))) problems.sortField = nameProblem(sortField, 'field') ?? 'That name is taken in the junction.';
  }
  if (kind === 'm2a' && allowed.length === 0) problems.allowed = 'Choose at least one collection.';

  let steps: PlannedStep[] = [];
  if (kind === 'm2o' && related) {
    steps = planM2O({ here, field: fieldName, related, relatedPk: primaryOf(relatedFields), reverse: reverseOn ? reverse : null, onDelete });
  } else if (kind === 'o2m' && related) {
    steps = planO2M({ here, field: fieldName, hereFields, related, relatedFields, foreignKey, sortField: sortOn ? sortField : null, onDelete });
  } else if (kind === 'm2m' && related) {
    steps = planM2M({ here, field: fieldName, hereFields, related, relatedFields, junction: junctionName, hereKey, relatedKey, sortField: sortOn ? sortField : null, reverse: reverseOn ? reverse : null, group: hereGroup });
  } else if (kind === 'm2a') {
    steps = planM2A({ here, field: fieldName, hereFields, allowed, junction: junctionName, hereKey, sortField: sortOn ? sortField : null, group: hereGroup });
  }

  const submit = async (): Promise<void> => {
    setSubmitted(true);
    if (busy || Object.keys(problems).length > 0 || steps.length === 0) return;
    setBusy(true);
    setError(null);
    setServerErrors({});
    try {
      await runSteps(steps);
      await refresh();
      onClose();
    } catch (err) {
      await refresh().catch(() => undefined);
      const failed = err instanceof StepError ? steps.find((s) => s.label === err.step) : undefined;
      const names: Record<string, string> = { field: fieldName, reverse, foreignKey, sortField, junction: junctionName };
      const onName = failed?.input && err instanceof StepError
        ? nameErrorOf(err.cause, names[failed.input], failed.input === 'junction' ? 'collection' : 'field') : null;
      if (failed?.input && onName && err instanceof StepError && err.leftovers.length === 0) setServerErrors({ [failed.input]: onName });
      setError(err);
      setBusy(false);
    }
  };

  const shown = (key: string): string | undefined => serverErrors[key] ?? (submitted ? problems[key] : undefined);
  const input = (key: string, label: string, value: string, onChange: (v: string) => void, note?: string) => {
    const err = shown(key);
    const described = [note ? `${id}-${key}-note` : '', err ? `${id}-${key}-error` : ''].filter(Boolean).join(' ') || undefined;
    return (
      <div className="field">
        <label htmlFor={`${id}-${key}`}>{label}</label>
        <input id={`${id}-${key}`} className="mono" value={value} autoComplete="off" spellCheck={false} aria-invalid={err ? true : undefined} aria-describedby={described}
          onChange={(e) => { onChange(e.target.value); setServerErrors((s) => { const { [key]: _x, ...rest } = s; return rest; }); }}
          onBlur={(e) => { const s = slugName(e.target.value); if (s && s !== e.target.value) onChange(s); }} />
        {err && <span className="field-error" id={`${id}-${key}-error`}>{err}</span>}
        {note && <span className="field-note" id={`${id}-${key}-note`}>{note}</span>}
      </div>
    );
  };

  const relatedSelect = (
    <div className="field">
      <label htmlFor={`${id}-related`}>{kind === 'o2m' ? 'Collection of the listed items' : 'Related collection'}</label>
      <select id={`${id}-related`} value={related} onChange={(e) => pickRelated(e.target.value)} data-autofocus
        aria-invalid={shown('related') ? true : undefined} aria-describedby={shown('related') ? `${id}-related-error` : undefined}>
        <option value="">Choose…</option>
        {targets.map((c) => <option key={c} value={c}>{c === here ? `${c} (this collection)` : c}</option>)}
      </select>
      {shown('related') && <span className="field-error" id={`${id}-related-error`}>{shown('related')}</span>}
    </div>
  );

  const onDeleteSelect = (label: string, options: [OnDelete, string][]) => (
    <div className="field">
      <label htmlFor={`${id}-ondelete`}>{label}</label>
      <select id={`${id}-ondelete`} value={onDelete} onChange={(e) => setOnDelete(e.target.value as OnDelete)}>
        {options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}
      </select>
    </div>
  );

  const toggle = (key: 'reverse' | 'sort', checked: boolean, label: string) => (
    <label className="dm-check">
      <input type="checkbox" checked={checked} onChange={(e) => (key === 'reverse' ? setReverseOn(e.target.checked) : setSortOn(e.target.checked))} />
      <span>{label}</span>
    </label>
  );

  return (
    <Dialog title={TITLES[kind]} onClose={onClose} onSubmit={() => void submit()} wide
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create relation'}</button>
      </>}>
      <p className="muted">{INTROS[kind](here)}</p>
      <div className="form-grid">
        {kind !== 'm2a' && relatedSelect}
        {input('field', kind === 'm2o' ? `Field on ${here}` : `List field on ${here}`, fieldName, (v) => { setField(v); setFieldTouched(true); })}
        {kind === 'm2o' && onDeleteSelect(related ? `When an item of ${related} is deleted` : 'When the related item is deleted', [['SET NULL', 'Empty this field'], ['CASCADE', `Delete the items of ${here} pointing at it`], ['NO ACTION', 'Refuse to delete it']])}
        {kind === 'o2m' && related && input('foreignKey', `Key field on ${related}`, foreignKey, setForeignKey, `Holds, in each item of ${related}, the key of the item of ${here} it belongs to.`)}
        {kind === 'o2m' && related && onDeleteSelect(`When an item of ${here} is deleted`, [['SET NULL', `Keep its items of ${related}, unlinked`], ['CASCADE', `Delete its items of ${related} too`], ['NO ACTION', 'Refuse while it has any']])}
        {(kind === 'm2m' || kind === 'm2a') && input('junction', 'Junction collection', junctionName, (v) => { setJunction(v); setJunctionTouched(true); }, 'A hidden collection with one row per link.')}
      </div>
      {kind === 'm2a' && (
        <fieldset className="dm-fieldset" aria-describedby={shown('allowed') ? `${id}-allowed-error` : undefined}>
          <legend>Collections it can link to</legend>
          <div className="dm-checks dm-columns">
            {userCollections.map((c) => (
              <label key={c} className="dm-check">
                <input type="checkbox" checked={allowed.includes(c)} onChange={(e) => setAllowed((a) => (e.target.checked ? [...a, c] : a.filter((x) => x !== c)))} />
                <span className="mono">{c}</span>
              </label>
            ))}
          </div>
          {shown('allowed') && <span className="field-error" id={`${id}-allowed-error`}>{shown('allowed')}</span>}
        </fieldset>
      )}
      {(kind === 'm2o' || kind === 'm2m') && related && (
        <div className="dm-option-row">
          {toggle('reverse', reverseOn, kind === 'm2o' ? `Also give ${related} the list of ${here} pointing at it` : `Also add the list field on ${related}`)}
          {reverseOn && input('reverse', `List field on ${related}`, reverse, setReverse)}
        </div>
      )}
      {(kind === 'o2m' || kind === 'm2m' || kind === 'm2a') && (kind === 'm2a' || related) && (
        <div className="dm-option-row">
          {toggle('sort', sortOn, 'Editors can put the list in their own order')}
          {sortOn && input('sortField', kind === 'o2m' ? `Sort field on ${related}` : 'Sort field in the junction', sortField, setSortField)}
        </div>
      )}
      {steps.length > 0 && (
        <div className="dm-plan" aria-label="This creates" role="group">
          <h3>This creates</h3>
          <ul>{steps.map((s) => <li key={s.label}>{s.creates}</li>)}</ul>
        </div>
      )}
      {error !== null && (Object.keys(serverErrors).length > 0 && error instanceof StepError
        // The server's words are on the name they were about; here, what happened to the rest.
        ? <div className="notice notice-error" role="alert">{stepTitle(error)} The reason is shown on the field.</div>
        : <ErrorNotice error={error instanceof StepError ? error.cause : error} title={error instanceof StepError ? stepTitle(error) : undefined} />)}
    </Dialog>
  );
}
