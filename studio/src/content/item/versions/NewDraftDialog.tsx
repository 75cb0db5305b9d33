/** "New draft": a name and a key (a slug made from the name until the key is typed in), and a sentence on what
 * happens, which depends on the item: a draft of an existing item keeps changes apart from it until promoted; new
 * content gets its key now (a uuid chosen here, or the key typed in the form) and its row at promote; a collection
 * that numbers its items itself needs a placeholder row now to hold the number. The form's unsaved changes go into
 * the draft. The API's errors show in the dialog, a key's on the key. */
import { useId, useState } from 'react';
import { ApiError } from '../../../api/errors.ts';
import { Dialog } from '../../../ui/Dialog.tsx';
import { KEY_PATTERN, keyFromName, versionErrorText } from './api.ts';

/** How the draft's item gets its key. */
export type NewDraftKind =
  | { kind: 'item' }
  | { kind: 'uuid' }
  | { kind: 'string'; key: string }
  | { kind: 'placeholder'; status: boolean };

export function NewDraftDialog({ target, collectionTitle, carriesEdits, onCreate, onClose }: {
  target: NewDraftKind;
  collectionTitle: string;
  carriesEdits: boolean;
  onCreate(name: string, key: string): Promise<void>;
  onClose(): void;
}) {
  const [name, setName] = useState('');
  const [key, setKey] = useState('');
  const [keyTyped, setKeyTyped] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [fieldErrors, setFieldErrors] = useState<{ name?: string; key?: string }>({});
  const nameId = useId();
  const keyId = useId();
  const shownKey = keyTyped ? key : keyFromName(name);

  async function submit() {
    if (busy) return;
    const errs: { name?: string; key?: string } = {};
    if (!name.trim()) errs.name = 'Give the draft a name.';
    if (!KEY_PATTERN.test(shownKey)) errs.key = 'Use 1 to 64 lower-case letters, digits, dashes or underscores.';
    setFieldErrors(errs);
    if (errs.name || errs.key) {
      document.getElementById(errs.name ? nameId : keyId)?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onCreate(name.trim(), shownKey);
    } catch (err) {
      const onKey = err instanceof ApiError && (err.code === 'RECORD_NOT_UNIQUE' || err.items.some((i) => i.field === 'key'));
      if (onKey) {
        setFieldErrors({ key: versionErrorText(err) });
        document.getElementById(keyId)?.focus();
      } else setError(err);
    } finally {
      setBusy(false);
    }
  }

  const about = (() => {
    switch (target.kind) {
      case 'item': return 'A draft keeps your changes apart from the item: the item stays as it is until the draft is promoted.';
      case 'uuid': return `The new ${collectionTitle.toLowerCase()} item is created when the draft is promoted; until then only people who may see drafts can see it.`;
      case 'string': return `The new item will have the key “${target.key}”. It is created when the draft is promoted.`;
      case 'placeholder': return `${collectionTitle} numbers its items itself, so an empty placeholder item is saved now to hold the number${target.status ? ' (with the status Draft)' : ''}. The draft’s content reaches it when the draft is promoted.`;
    }
  })();

  return (
    <Dialog title="New draft" onClose={onClose} onSubmit={() => void submit()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create draft'}</button>
      </>}>
      <p className="muted">{about}{carriesEdits ? ' Your unsaved changes go into the draft.' : ''}</p>
      <div className={`field${fieldErrors.name ? ' has-error' : ''}`}>
        <label htmlFor={nameId}>Name</label>
        <input id={nameId} value={name} onChange={(e) => { setName(e.target.value); setFieldErrors((f) => ({ ...f, name: undefined })); }}
          maxLength={255} autoComplete="off" aria-invalid={Boolean(fieldErrors.name) || undefined}
          aria-describedby={fieldErrors.name ? `${nameId}-error` : undefined} placeholder="Spring campaign copy" />
        {fieldErrors.name && <span className="field-error" id={`${nameId}-error`}>{fieldErrors.name}</span>}
      </div>
      <div className={`field${fieldErrors.key ? ' has-error' : ''}`}>
        <label htmlFor={keyId}>Key</label>
        <input id={keyId} className="mono" value={shownKey} spellCheck={false} autoComplete="off" maxLength={64}
          onChange={(e) => { setKey(e.target.value); setKeyTyped(true); setFieldErrors((f) => ({ ...f, key: undefined })); }}
          aria-invalid={Boolean(fieldErrors.key) || undefined} aria-describedby={`${keyId}-note${fieldErrors.key ? ` ${keyId}-error` : ''}`} />
        {fieldErrors.key && <span className="field-error" id={`${keyId}-error`}>{fieldErrors.key}</span>}
        <span className="field-note" id={`${keyId}-note`}>Names the draft in links and in the API; unique among this item’s drafts.</span>
      </div>
      {error !== null && <div className="notice notice-error" role="alert">{versionErrorText(error)}</div>}
    </Dialog>
  );
}
