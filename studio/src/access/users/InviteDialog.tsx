/** Invite people by mail (POST /users/invite): one or more addresses and the role they join. Each gets an invited
 * account and a mail with a link to choose a password (the Studio's accept-invite page); an address still invited
 * gets the mail again. */
import { useId, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { invalidateAccess, recordName, useRoleOptions } from '../data.ts';
import { EMAIL, SelectField, splitError, type FieldErrors } from '../../ui/form.tsx';

export function addressesOf(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean))];
}

export function InviteDialog({ onClose, onDone }: { onClose(): void; onDone(message: string): void }) {
  const client = useQueryClient();
  const roles = useRoleOptions();
  const id = useId();
  const [emails, setEmails] = useState('');
  const [role, setRole] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function send(): Promise<void> {
    const list = addressesOf(emails);
    const next: FieldErrors = {};
    const bad = list.filter((e) => !EMAIL.test(e));
    if (list.length === 0) next.email = 'Enter at least one email address.';
    else if (bad.length > 0) next.email = `Not an email address: ${bad.join(', ')}.`;
    if (!role) next.role = 'Choose the role they join.';
    setErrors(next);
    if (Object.keys(next).length > 0 || busy) return;
    setBusy(true);
    setError(null);
    try {
      await request('POST', '/users/invite', { body: { email: list, role } });
      await invalidateAccess(client);
      onDone(list.length === 1 ? `Invitation sent to ${list[0]}.` : `Invitations sent to ${list.length} people.`);
    } catch (err) {
      const { fields, rest } = splitError(err, ['email', 'role']);
      setErrors(fields);
      setError(rest);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title="Invite users" onClose={onClose} onSubmit={() => void send()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Sending…' : 'Send invitations'}</button>
      </>}>
      <div className="field form-field">
        <label htmlFor={`${id}-emails`}>Email addresses</label>
        <textarea id={`${id}-emails`} className="invite-emails" value={emails} rows={3} placeholder="ada@example.com, grace@example.com"
          onChange={(e) => { setEmails(e.target.value); setErrors((x) => ({ ...x, email: '' })); }}
          aria-invalid={errors.email ? true : undefined} aria-describedby={`${id}-emails-note${errors.email ? ` ${id}-emails-error` : ''}`} />
        <p className="field-note" id={`${id}-emails-note`}>Separate addresses with commas or new lines. Each gets a link to choose a password.</p>
        {errors.email && <p className="field-error" id={`${id}-emails-error`}>{errors.email}</p>}
      </div>
      <SelectField label="Role" value={role} onChange={(v) => { setRole(v); setErrors((x) => ({ ...x, role: '' })); }} error={errors.role}>
        <option value="">Choose a role…</option>
        {(roles.data ?? []).map((r) => <option key={r.id} value={r.id}>{recordName(r.name)}</option>)}
      </SelectField>
      {roles.error !== null && <ErrorNotice error={roles.error} onRetry={() => void roles.refetch()} title="The roles could not be loaded." />}
      {error !== null && <ErrorNotice error={error} />}
    </Dialog>
  );
}
