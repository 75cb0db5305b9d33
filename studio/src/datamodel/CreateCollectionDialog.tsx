/** Creating a collection (its name, its primary key: numbered, generated UUID or typed text; optionally a single
 * item, and the folder it sits in) or a folder (a name only, no table). One request: the table and its key field
 * are made together, or not at all. */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { titleOf, useCollections } from '../content/schema.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { CheckField, SelectField, splitError, TextField, type FieldErrors } from '../ui/form.tsx';
import { identifierProblem, primaryKeyField, refreshSchema, type KeyKind } from './data.ts';

const KEYS: { value: KeyKind; label: string; note: string }[] = [
  { value: 'integer', label: 'Numbered automatically', note: '1, 2, 3… given by the database.' },
  { value: 'uuid', label: 'Generated UUID', note: 'Unique everywhere; lets drafts of new items carry their key.' },
  { value: 'string', label: 'Typed by the editor', note: 'A text key such as a slug or a code.' },
];

export function CreateCollectionDialog({ folder, onClose, onCreated }: { folder: boolean; onClose(): void; onCreated(name: string): void }) {
  const client = useQueryClient();
  const collections = useCollections();
  const [name, setName] = useState('');
  const [key, setKey] = useState<KeyKind>('integer');
  const [singleton, setSingleton] = useState(false);
  const [group, setGroup] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const groups = (collections.data ?? []).filter((c) => c.schema === null && !c.collection.startsWith('svc_'));
  const what = folder ? 'folder' : 'collection';

  async function create(): Promise<void> {
    const problem = identifierProblem(name, what) ?? ((collections.data ?? []).some((c) => c.collection === name) ? `A collection or folder named “${name}” exists.` : null)
      ?? (name.startsWith('svc_') ? 'Names starting with “svc_” are kept for the system.' : null);
    if (problem) {
      setErrors({ collection: problem });
      return;
    }
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const meta: Record<string, unknown> = { group: group || null };
      if (folder) await request('POST', '/collections', { body: { collection: name, meta, schema: null } });
      else await request('POST', '/collections', { body: { collection: name, meta: { ...meta, singleton }, schema: {}, fields: [primaryKeyField(key)] } });
      await refreshSchema(client);
      onCreated(name);
    } catch (err) {
      const split = splitError(err, ['collection']);
      setErrors(split.fields);
      setError(split.rest);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title={folder ? 'Create folder' : 'Create collection'} onClose={onClose} onSubmit={() => void create()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : folder ? 'Create folder' : 'Create collection'}</button>
      </>}>
      <TextField label="Name" value={name} onChange={(v) => { setName(v); setErrors({}); }} error={errors.collection} autoComplete="off" spellCheck={false}
        placeholder={folder ? 'editorial' : 'articles'} note={`The ${what}'s key in the API (${name ? `/items/${name}` : '/items/…'}); shown as “${titleOf(name || what)}”. It cannot be renamed later.`} />
      {!folder && (
        <fieldset className="dm-radios">
          <legend>Primary key</legend>
          {KEYS.map((k) => (
            <label key={k.value} className="dm-radio">
              <input type="radio" name="key-kind" value={k.value} checked={key === k.value} onChange={() => setKey(k.value)} />
              <span><strong>{k.label}</strong> <span className="muted">{k.note}</span></span>
            </label>
          ))}
        </fieldset>
      )}
      {!folder && <CheckField label="A single item" checked={singleton} onChange={setSingleton} note="For one-of-a-kind content such as the home page or site settings." />}
      <SelectField label="In folder" value={group} onChange={setGroup}>
        <option value="">None (top level)</option>
        {groups.map((g) => <option key={g.collection} value={g.collection}>{titleOf(g.collection)}</option>)}
      </SelectField>
      {error !== null && <ErrorNotice error={error} title="Not created:" />}
    </Dialog>
  );
}
