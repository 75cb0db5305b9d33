/** Creating a collection (a table: its key, singleton or not, the optional fields most collections want) or a folder
 * (a name in the navigation, no table). One POST /collections makes the table with its fields; the "created by" and
 * "updated by" fields also get their relation to the users, and if that fails the new collection is removed again. */
import { useId, useState } from 'react';
import { useLocation } from 'wouter';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import type { SchemaData } from '../DataModelModule.tsx';
import { api, nameErrorOf, runSteps, StepError, useRefreshSchema, type Step } from '../api.ts';
import { isSystem, nameProblem, slugName } from '../model.ts';
import { buildTree, flatten } from './tree.ts';

type KeyKind = 'integer' | 'uuid' | 'string';

const OPTIONAL = [
  { id: 'status', label: 'Status', note: 'Published, draft or archived; archiving hides items from the list.' },
  { id: 'sort', label: 'Sort', note: 'A number for the manual order of items.' },
  { id: 'date_created', label: 'Date created', note: 'Set when an item is created.' },
  { id: 'user_created', label: 'Created by', note: 'The user who created the item.' },
  { id: 'date_updated', label: 'Date updated', note: 'Set at every change.' },
  { id: 'user_updated', label: 'Updated by', note: 'The user who last changed the item.' },
] as const;
type OptionalId = (typeof OPTIONAL)[number]['id'];

function keyField(name: string, kind: KeyKind): Record<string, unknown> {
  if (kind === 'uuid') return { field: name, type: 'uuid', schema: { is_primary_key: true }, meta: { hidden: true, readonly: true, interface: 'input', special: ['uuid'] } };
  if (kind === 'string') return { field: name, type: 'string', schema: { is_primary_key: true, max_length: 255 }, meta: { interface: 'input', required: true } };
  return { field: name, type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true, interface: 'input' } };
}

function optionalField(id: OptionalId, sort: number): Record<string, unknown> {
  switch (id) {
    case 'status':
      return {
        field: 'status', type: 'string', schema: { default_value: 'draft', is_nullable: false, max_length: 255 },
        meta: {
          sort, width: 'full', interface: 'select-dropdown', display: 'labels', required: true,
          options: { choices: [{ text: 'Published', value: 'published' }, { text: 'Draft', value: 'draft' }, { text: 'Archived', value: 'archived' }] },
        },
      };
    case 'sort':
      return { field: 'sort', type: 'integer', schema: {}, meta: { sort, interface: 'input', hidden: true } };
    case 'date_created': case 'date_updated':
      return {
        field: id, type: 'timestamp', schema: {},
        meta: { sort, special: [id === 'date_created' ? 'date-created' : 'date-updated'], interface: 'datetime', readonly: true, hidden: true, width: 'half', display: 'datetime', display_options: { relative: true } },
      };
    case 'user_created': case 'user_updated':
      return {
        field: id, type: 'uuid', schema: {},
        meta: { sort, special: [id === 'user_created' ? 'user-created' : 'user-updated'], interface: 'select-dropdown-m2o', readonly: true, hidden: true, width: 'half', display: 'related-values' },
      };
  }
}

export function CreateCollectionDialog({ kind, data, onClose }: { kind: 'collection' | 'folder'; data: SchemaData; onClose(): void }) {
  const [, navigate] = useLocation();
  const refresh = useRefreshSchema();
  const ids = useId();
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [group, setGroup] = useState('');
  const [keyKind, setKeyKind] = useState<KeyKind>('integer');
  const [keyName, setKeyName] = useState('id');
  const [singleton, setSingleton] = useState(false);
  const [optional, setOptional] = useState<Set<OptionalId>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [serverNameError, setServerNameError] = useState<string | null>(null);

  const folder = kind === 'folder';
  const taken = data.collections.some((c) => c.collection.toLowerCase() === name.toLowerCase());
  const problem = nameProblem(name, 'collection') ?? (taken ? `A collection named “${name}” exists already.` : null);
  const keyProblem = folder ? null : nameProblem(keyName, 'field') ?? (optional.has(keyName as OptionalId) ? `“${keyName}” is one of the optional fields below.` : null);
  const nameError = (touched && problem) || serverNameError;
  const groups = flatten(buildTree(data.collections)).map((x) => ({ name: x.node.name, depth: x.depth, folder: x.node.collection.schema === null }));

  const submit = async (): Promise<void> => {
    setTouched(true);
    if (problem || keyProblem || busy) return;
    setBusy(true);
    setError(null);
    setServerNameError(null);
    const meta: Record<string, unknown> = { group: group || null };
    const body: Record<string, unknown> = { collection: name, meta };
    if (folder) {
      body.schema = null;
      meta.icon = 'folder';
    } else {
      body.schema = {};
      meta.singleton = singleton;
      const chosen = OPTIONAL.filter((o) => optional.has(o.id));
      body.fields = [keyField(keyName, keyKind), ...chosen.map((o, i) => optionalField(o.id, i + 2))];
      if (optional.has('status')) Object.assign(meta, { archive_field: 'status', archive_value: 'archived', unarchive_value: 'draft', archive_app_filter: true });
      if (optional.has('sort')) meta.sort_field = 'sort';
    }
    // The new collection goes last among its siblings.
    const siblings = data.collections.filter((c) => !isSystem(c.collection) && (c.meta?.group ?? '') === group);
    meta.sort = siblings.reduce((m, c) => Math.max(m, c.meta?.sort ?? 0), 0) + 1;
    const steps: Step[] = [{ label: `the collection ${name}`, run: () => api.createCollection(body), undo: () => api.deleteCollection(name) }];
    for (const f of ['user_created', 'user_updated'] as const) {
      if (!folder && optional.has(f)) {
        steps.push({ label: `the relation of ${f} to the users`, run: () => api.createRelation({ collection: name, field: f, related_collection: 'svc_users', schema: { on_delete: 'SET NULL' } }) });
      }
    }
    try {
      await runSteps(steps);
      await refresh();
      onClose();
      navigate(`/${encodeURIComponent(name)}`);
    } catch (err) {
      const cause = err instanceof StepError ? err.cause : err;
      const onName = err instanceof StepError && err.step === steps[0].label ? nameErrorOf(cause, name, 'collection') : null;
      if (onName) setServerNameError(onName);
      else setError(err);
      setBusy(false);
    }
  };

  const toggle = (id: OptionalId): void => setOptional((s) => {
    const next = new Set(s);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  });

  return (
    <Dialog title={folder ? 'Create a folder' : 'Create a collection'} onClose={onClose} onSubmit={() => void submit()} wide={!folder}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : folder ? 'Create folder' : 'Create collection'}</button>
      </>}>
      <div className="form-grid">
        <div className="field">
          <label htmlFor={`${ids}-name`}>Name</label>
          <input id={`${ids}-name`} value={name} className="mono" autoComplete="off" spellCheck={false} data-autofocus
            aria-invalid={nameError ? true : undefined} aria-describedby={`${ids}-name-note${nameError ? ` ${ids}-name-error` : ''}`}
            onChange={(e) => { setName(e.target.value); setServerNameError(null); }} onBlur={() => { setTouched(name !== ''); if (name !== slugName(name) && slugName(name)) setName(slugName(name)); }} />
          {nameError && <span className="field-error" id={`${ids}-name-error`}>{nameError}</span>}
          <span className="field-note" id={`${ids}-name-note`}>The table’s name and the API path (/items/{name || 'name'}): letters, digits and underscores; it can’t be changed later.</span>
        </div>
        <div className="field">
          <label htmlFor={`${ids}-group`}>In folder</label>
          <select id={`${ids}-group`} value={group} onChange={(e) => setGroup(e.target.value)}>
            <option value="">None (top level)</option>
            {groups.map((g) => <option key={g.name} value={g.name}>{`${'\u2003'.repeat(g.depth)}${g.name}${g.folder ? '' : ' (collection)'}`}</option>)}
          </select>
        </div>
      </div>
      {!folder && (
        <>
          <fieldset className="dm-fieldset">
            <legend>Primary key</legend>
            <div className="dm-radios">
              {([['integer', 'Auto-increment integer', '1, 2, 3… given by the database.'], ['uuid', 'Generated UUID', 'A random unique id given by the database.'], ['string', 'Manual string', 'Typed by the editor, like a code or a slug.']] as const).map(([value, label, note]) => (
                <label key={value} className="dm-radio">
                  <input type="radio" name={`${ids}-key`} value={value} checked={keyKind === value} onChange={() => setKeyKind(value)} />
                  <span><span className="dm-radio-label">{label}</span><span className="field-note">{note}</span></span>
                </label>
              ))}
            </div>
            <div className="field dm-narrow">
              <label htmlFor={`${ids}-key-name`}>Key field name</label>
              <input id={`${ids}-key-name`} value={keyName} className="mono" autoComplete="off" spellCheck={false} onChange={(e) => setKeyName(e.target.value)}
                aria-invalid={keyProblem ? true : undefined} aria-describedby={keyProblem ? `${ids}-key-error` : undefined} />
              {keyProblem && <span className="field-error" id={`${ids}-key-error`}>{keyProblem}</span>}
            </div>
          </fieldset>
          <label className="dm-check">
            <input type="checkbox" checked={singleton} onChange={(e) => setSingleton(e.target.checked)} />
            <span>Singleton<span className="field-note"> — one item only (site settings, a home page): the content module opens it directly.</span></span>
          </label>
          <fieldset className="dm-fieldset">
            <legend>Optional fields</legend>
            <div className="dm-checks">
              {OPTIONAL.map((o) => (
                <label key={o.id} className="dm-check">
                  <input type="checkbox" checked={optional.has(o.id)} onChange={() => toggle(o.id)} />
                  <span>{o.label} <span className="mono muted">{o.id}</span><span className="field-note dm-block">{o.note}</span></span>
                </label>
              ))}
            </div>
          </fieldset>
        </>
      )}
      {folder && <p className="muted">A folder has no table and no fields: it groups collections in the navigation.</p>}
      {error !== null && <ErrorNotice error={error instanceof StepError ? error.cause : error} title={error instanceof StepError ? stepTitle(error) : undefined} />}
    </Dialog>
  );
}

export function stepTitle(err: StepError): string {
  const undone = err.leftovers.length === 0 ? 'Nothing was kept.' : `Could not remove ${err.leftovers.join(', ')}; delete it by hand.`;
  return `Creating ${err.step} failed. ${undone}`;
}
