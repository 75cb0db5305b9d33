/** Pieces the role and policy screens share: what a record's access flags amount to, as a badge, and the dialog that
 * creates a record from its name before its editor opens for the rest. */
import { useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { invalidateAccess } from './data.ts';
import { splitError, TextField, type FieldErrors } from '../ui/form.tsx';

/** What a role's or policy's own flags grant beyond permissions (nothing shown when neither: access may still come
 * from the other side, a role's policies or a policy's roles). */
export function AccessBadges({ admin, app, empty = null }: { admin: boolean; app: boolean; empty?: ReactNode }) {
  if (admin) return <span className="badge badge-admin">Administrator</span>;
  if (app) return <span className="badge badge-app">Studio access</span>;
  return <>{empty}</>;
}

/** Asks for a name, creates the record, then hands its id over (the editor opens for the rest). */
export function CreateNamedDialog({ title, noun, create, onCreated, onClose, note }: {
  title: string;
  noun: string;
  create(name: string): Promise<string>;
  onCreated(id: string): void;
  onClose(): void;
  note?: string;
}) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  async function submit(): Promise<void> {
    if (!name.trim()) {
      setErrors({ name: `Give the ${noun} a name.` });
      return;
    }
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const id = await create(name.trim());
      await invalidateAccess(client);
      onCreated(id);
    } catch (err) {
      const { fields, rest } = splitError(err, ['name']);
      setErrors(fields);
      setError(rest);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Dialog title={title} onClose={onClose} onSubmit={() => void submit()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : title}</button>
      </>}>
      <TextField label="Name" value={name} onChange={(v) => { setName(v); setErrors({}); }} error={errors.name} maxLength={100} autoComplete="off"
        note={note ?? 'You set the rest on the next screen.'} />
      {error !== null && <ErrorNotice error={error} />}
    </Dialog>
  );
}
