/** The relation wizards: many to one (a field here pointing at an item there), one to many (the items there that
 * point here, with the key field made there), many to many (a junction collection with its two keys, made for you)
 * and many to any (a junction whose items may come from several collections). Each is one submit: the fields, the
 * junction and the relations are made in order, and when a step fails the ones made before it are taken back, so
 * nothing is left half-made. */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { titleOf, type Collection, type Field } from '../content/schema.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { CheckField, SelectField, TextField, type FieldErrors } from '../ui/form.tsx';
import { api, identifierProblem, keyTypeOf, primaryKeyField, refreshSchema, runAll, type Step } from './data.ts';

export type RelationKind = 'm2o' | 'o2m' | 'm2m' | 'm2a';

const TITLES: Record<RelationKind, string> = { m2o: 'Add a many-to-one relation', o2m: 'Add a one-to-many relation', m2m: 'Add a many-to-many relation', m2a: 'Add a many-to-any relation' };
const EXPLAIN: Record<RelationKind, string> = {
  m2o: 'Each item here points at one item of another collection (an article’s author). Many items here may point at the same one there.',
  o2m: 'The items of another collection that point at an item here (an article’s chapters). Their key field is made in that collection.',
  m2m: 'Items here and items there link freely (articles and tags). A hidden junction collection holds the links.',
  m2a: 'Items here link to items of several collections (a page’s blocks: headings, images, quotes). A hidden junction holds the links.',
};

export function RelationWizard({ kind, collection, allFields, collections, onClose, onDone }: {
  kind: RelationKind;
  collection: string;
  allFields: Field[];
  collections: Collection[];
  onClose(): void;
  onDone(message: string): void;
}) {
  const client = useQueryClient();
  const targets = collections.filter((c) => c.schema !== null && (!c.collection.startsWith('svc_') || (kind === 'm2o' && ['svc_files', 'svc_users'].includes(c.collection))));
  const [related, setRelated] = useState(kind === 'm2a' ? '' : (targets.find((c) => c.collection !== collection) ?? targets[0])?.collection ?? '');
  const [allowed, setAllowed] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [foreignKey, setForeignKey] = useState(`${collection}_id`);
  const [junction, setJunction] = useState('');
  const [sort, setSort] = useState(false);
  const [onDelete, setOnDelete] = useState('SET NULL');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const field = name || (kind === 'm2a' ? 'items' : related.replace(/^svc_/, ''));
  const junctionName = junction || `${collection}_${kind === 'm2a' ? field : related}`;
  const exists = (c: string, f: string): boolean => allFields.some((x) => x.collection === c && x.field === f);
  const hereKey = `${collection}_id`;
  const thereKey = related === collection ? `related_${related}_id` : `${related}_id`;

  function steps(): Step[] {
    if (kind === 'm2o') {
      const file = related === 'svc_files';
      return [
        api.createField(collection, { field, type: keyTypeOf(allFields, related), meta: { interface: file ? 'file-image' : 'select-dropdown-m2o', special: [file ? 'file' : 'm2o'], width: 'half' } }),
        api.createRelation({ collection, field, related_collection: related, schema: { on_delete: onDelete } }),
      ];
    }
    if (kind === 'o2m') {
      return [
        api.createField(related, { field: foreignKey, type: keyTypeOf(allFields, collection), meta: { interface: 'select-dropdown-m2o', special: ['m2o'], width: 'half' } }),
        ...(sort ? [api.createField(related, { field: 'sort', type: 'integer', meta: { hidden: true, interface: 'input' } })] : []),
        api.createField(collection, { field, type: 'alias', meta: { special: ['o2m'], interface: 'list-o2m', width: 'full' } }),
        api.createRelation({ collection: related, field: foreignKey, related_collection: collection, meta: { one_field: field, sort_field: sort ? 'sort' : null }, schema: { on_delete: onDelete } }),
      ];
    }
    const junctionFields: Record<string, unknown>[] = [primaryKeyField('integer'), { field: hereKey, type: keyTypeOf(allFields, collection), meta: { hidden: true } }];
    if (kind === 'm2m') junctionFields.push({ field: thereKey, type: keyTypeOf(allFields, related), meta: { hidden: true } });
    else junctionFields.push({ field: 'item', type: 'string', meta: { hidden: true } }, { field: 'collection', type: 'string', meta: { hidden: true } });
    if (sort) junctionFields.push({ field: 'sort', type: 'integer', meta: { hidden: true } });
    const made: Step[] = [
      api.createCollection({ collection: junctionName, meta: { hidden: true, icon: 'import_export', group: collections.find((c) => c.collection === collection)?.meta?.group ?? null }, schema: {}, fields: junctionFields }),
      api.createField(collection, { field, type: 'alias', meta: { special: [kind], interface: kind === 'm2m' ? 'list-m2m' : 'list-m2a', width: 'full' } }),
    ];
    if (kind === 'm2m') {
      made.push(
        api.createRelation({ collection: junctionName, field: thereKey, related_collection: related, meta: { junction_field: hereKey }, schema: { on_delete: 'CASCADE' } }),
        api.createRelation({ collection: junctionName, field: hereKey, related_collection: collection, meta: { one_field: field, junction_field: thereKey, sort_field: sort ? 'sort' : null, one_deselect_action: 'delete' }, schema: { on_delete: 'CASCADE' } }),
      );
    } else {
      made.push(
        api.createRelation({ collection: junctionName, field: 'item', related_collection: null, meta: { one_allowed_collections: allowed, one_collection_field: 'collection', junction_field: hereKey } }),
        api.createRelation({ collection: junctionName, field: hereKey, related_collection: collection, meta: { one_field: field, junction_field: 'item', sort_field: sort ? 'sort' : null, one_deselect_action: 'delete' }, schema: { on_delete: 'CASCADE' } }),
      );
    }
    return made;
  }

  function check(): FieldErrors {
    const out: FieldErrors = {};
    const fieldProblem = identifierProblem(field, 'field') ?? (exists(collection, field) ? `“${field}” is already a field of ${titleOf(collection)}.` : null);
    if (fieldProblem) out.field = fieldProblem;
    if (kind !== 'm2a' && !related) out.related = 'Choose the collection.';
    if (kind === 'm2a' && allowed.length === 0) out.related = 'Choose at least one collection.';
    if (kind === 'o2m') {
      const fk = identifierProblem(foreignKey, 'key field') ?? (exists(related, foreignKey) ? `“${foreignKey}” is already a field of ${titleOf(related)}.` : null);
      if (fk) out.foreign_key = fk;
      if (sort && exists(related, 'sort')) out.foreign_key = `${titleOf(related)} already has a “sort” field; untick “Editors order them”.`;
    }
    if (kind === 'm2m' || kind === 'm2a') {
      const j = identifierProblem(junctionName, 'junction') ?? (collections.some((c) => c.collection === junctionName) ? `A collection named “${junctionName}” exists.` : null);
      if (j) out.junction = j;
    }
    return out;
  }

  async function create(): Promise<void> {
    const local = check();
    setErrors(local);
    if (Object.keys(local).length > 0 || busy) return;
    setBusy(true);
    setError(null);
    try {
      await runAll(steps());
      await refreshSchema(client);
      onDone(`Relation “${titleOf(field)}” added${kind === 'm2m' || kind === 'm2a' ? ` (with the junction ${junctionName})` : ''}.`);
    } catch (err) {
      // Whatever was made before the failing step has been taken back; the schema is read again to show it.
      await refreshSchema(client);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title={TITLES[kind]} onClose={onClose} onSubmit={() => void create()} wide
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create relation'}</button>
      </>}>
      <p className="field-note">{EXPLAIN[kind]}</p>
      <div className="form-grid">
        {kind === 'm2a' ? (
          <fieldset className="full dm-allowed">
            <legend>Collections its items may come from</legend>
            {targets.filter((c) => !c.collection.startsWith('svc_')).map((c) => (
              <CheckField key={c.collection} label={titleOf(c.collection)} checked={allowed.includes(c.collection)}
                onChange={(v) => { setAllowed((a) => (v ? [...a, c.collection] : a.filter((x) => x !== c.collection))); setErrors(({ related: _r, ...rest }) => rest); }} />
            ))}
            {errors.related && <p className="field-error">{errors.related}</p>}
          </fieldset>
        ) : (
          <SelectField label={kind === 'm2o' ? 'Points at' : kind === 'o2m' ? 'Items of' : 'Linked with'} value={related} onChange={(v) => { setRelated(v); setErrors({}); }} error={errors.related}>
            {targets.map((c) => <option key={c.collection} value={c.collection}>{c.collection === 'svc_files' ? 'Files' : c.collection === 'svc_users' ? 'Users' : titleOf(c.collection)}</option>)}
          </SelectField>
        )}
        <TextField label={`Field in ${titleOf(collection)}`} value={name} placeholder={field} onChange={(v) => { setName(v); setErrors(({ field: _f, ...rest }) => rest); }} error={errors.field}
          autoComplete="off" spellCheck={false} note={kind === 'm2o' ? 'Holds the key of the item it points at.' : 'Shows the linked items in the form; it has no column.'} />
        {kind === 'o2m' && (
          <TextField label={`Key field in ${titleOf(related)}`} value={foreignKey} onChange={(v) => { setForeignKey(v); setErrors(({ foreign_key: _k, ...rest }) => rest); }} error={errors.foreign_key}
            autoComplete="off" spellCheck={false} note={`Made in ${titleOf(related)}: the ${titleOf(collection).toLowerCase()} each of its items belongs to.`} />
        )}
        {(kind === 'm2m' || kind === 'm2a') && (
          <TextField label="Junction collection" value={junction} placeholder={junctionName} onChange={(v) => { setJunction(v); setErrors(({ junction: _j, ...rest }) => rest); }} error={errors.junction}
            autoComplete="off" spellCheck={false} note={kind === 'm2m' ? `Made for you, hidden, with the keys ${hereKey} and ${thereKey}.` : `Made for you, hidden, with ${hereKey}, item and collection.`} />
        )}
        {(kind === 'm2o' || kind === 'o2m') && (
          <SelectField label={kind === 'm2o' ? `When the ${titleOf(related).toLowerCase() || 'related'} item is deleted` : `When the ${titleOf(collection).toLowerCase()} item is deleted`}
            value={onDelete} onChange={setOnDelete}>
            <option value="SET NULL">{kind === 'm2o' ? 'Clear this field' : 'Keep its items, unlinked'}</option>
            <option value="CASCADE">{kind === 'm2o' ? `Delete the ${titleOf(collection).toLowerCase()} item too` : 'Delete its items too'}</option>
            <option value="NO ACTION">Refuse the deletion while linked</option>
          </SelectField>
        )}
        {kind !== 'm2o' && (
          <div className="full"><CheckField label="Editors order them" checked={sort} onChange={setSort} note="Adds a hidden sort field, kept up to date by drag and drop in the form." /></div>
        )}
      </div>
      {error !== null && <ErrorNotice error={error} title="Nothing was created:" />}
    </Dialog>
  );
}
