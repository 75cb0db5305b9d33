/** Create an account with a password (POST /users), for someone who will not get an invitation mail. The password
 * is to be changed at the first sign-in unless the admin says otherwise. A taken email or a password the project's
 * policy refuses shows on its field; what was typed stays. */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { invalidateAccess, recordName, useRoleOptions } from '../data.ts';
import { CheckField, EMAIL, SelectField, splitError, TextField, type FieldErrors } from '../../ui/form.tsx';

const FIELDS = ['first_name', 'last_name', 'email', 'password', 'role'];

export function CreateUserDialog({ onClose, onCreated }: { onClose(): void; onCreated(id: string): void }) {
  const client = useQueryClient();
  const roles = useRoleOptions();
  const [draft, setDraft] = useState({ first_name: '', last_name: '', email: '', password: '', role: '' });
  const [mustChange, setMustChange] = useState(true);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof draft) => (value: string) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setErrors((e) => (e[key] ? { ...e, [key]: '' } : e));
  };

  async function create(): Promise<void> {
    const next: FieldErrors = {};
    if (!EMAIL.test(draft.email.trim())) next.email = 'Enter an email address like name@example.com.';
    if (draft.password === '') next.password = 'Choose a password, or invite them by mail instead.';
    setErrors(next);
    if (Object.keys(next).length > 0 || busy) return;
    setBusy(true);
    setError(null);
    try {
      const id = await request<string>('POST', '/users', {
        body: {
          first_name: draft.first_name.trim() || null, last_name: draft.last_name.trim() || null, email: draft.email.trim(),
          password: draft.password, role: draft.role || null, status: 'active', require_password_change: mustChange,
        },
      });
      await invalidateAccess(client);
      onCreated(id);
    } catch (err) {
      const { fields, rest } = splitError(err, FIELDS);
      if (rest instanceof ApiError && /password/i.test(rest.message)) {
        setErrors({ password: rest.message });
        setError(null);
      } else {
        setErrors(fields);
        setError(rest);
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title="Create user" onClose={onClose} onSubmit={() => void create()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Creating…' : 'Create user'}</button>
      </>}>
      <div className="form-grid">
        <TextField label="First name" value={draft.first_name} onChange={set('first_name')} error={errors.first_name} autoComplete="off" maxLength={50} />
        <TextField label="Last name" value={draft.last_name} onChange={set('last_name')} error={errors.last_name} autoComplete="off" maxLength={50} />
        <TextField className="full" label="Email" type="email" value={draft.email} onChange={set('email')} error={errors.email} autoComplete="off" maxLength={128} />
        <TextField className="full" label="Password" type="password" value={draft.password} onChange={set('password')} error={errors.password} autoComplete="new-password" />
        <SelectField className="full" label="Role" value={draft.role} onChange={set('role')} error={errors.role}>
          <option value="">No role</option>
          {(roles.data ?? []).map((r) => <option key={r.id} value={r.id}>{recordName(r.name)}</option>)}
        </SelectField>
      </div>
      <CheckField label="Ask for a new password at the first sign-in" checked={mustChange} onChange={setMustChange}
        note="Recommended: the password you set here is known to you." />
      {error !== null && <ErrorNotice error={error} />}
    </Dialog>
  );
}
