/** /access/users/:id: one user. Their details and role (saved together; a new password can be set, to be changed at
 * the next sign-in), their status (suspend, archive, reactivate; an invitation sent again), two-factor reset by an
 * admin, what they would see ("View as"), and deleting the account with its email typed to confirm. Suspending,
 * archiving, a new password and a two-factor reset end their sessions (the server's rule). */
import { useEffect, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { invalidateAccess, recordName, statusLabel, useRoleOptions, userName, when, type UserRecord } from '../data.ts';
import { CheckField, EMAIL, SelectField, splitError, TextField, type FieldErrors } from '../../ui/form.tsx';

const FIELDS = ['id', 'first_name', 'last_name', 'email', 'status', 'role', 'tfa_enabled', 'last_access', 'provider', 'require_password_change'];
const EDITABLE = ['first_name', 'last_name', 'email', 'role', 'password'];

interface Draft { first_name: string; last_name: string; email: string; role: string; password: string; mustChange: boolean }

function draftOf(u: UserRecord): Draft {
  return { first_name: u.first_name ?? '', last_name: u.last_name ?? '', email: u.email ?? '', role: u.role ?? '', password: '', mustChange: true };
}

function changesOf(u: UserRecord, d: Draft): Record<string, unknown> {
  const base = draftOf(u);
  const out: Record<string, unknown> = {};
  if (d.first_name !== base.first_name) out.first_name = d.first_name.trim() || null;
  if (d.last_name !== base.last_name) out.last_name = d.last_name.trim() || null;
  if (d.email !== base.email) out.email = d.email.trim();
  if (d.role !== base.role) out.role = d.role || null;
  if (d.password !== '') {
    out.password = d.password;
    out.require_password_change = d.mustChange;
  }
  return out;
}

type Confirm = null | 'suspend' | 'archive' | 'tfa' | 'delete';

export default function UserPage({ id }: { id: string }) {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const user = useQuery({
    queryKey: ['access', 'user', id],
    queryFn: ({ signal }) => request<UserRecord>('GET', `/users/${encodeURIComponent(id)}`, { query: { fields: FIELDS }, signal }),
  });
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [status, setStatus] = useState<{ busy: boolean; error: unknown; note: string | null }>({ busy: false, error: null, note: null });

  if (user.error) {
    const gone = user.error instanceof ApiError && (user.error.status === 403 || user.error.status === 404);
    return (
      <div className="main-pane">
        <header className="page-header"><h1>User</h1></header>
        <div className="page-body">
          {gone ? <div className="notice" role="status"><span>This user does not exist (any more).</span><Link className="btn btn-small" href="/users">All users</Link></div>
            : <ErrorNotice error={user.error} onRetry={() => void user.refetch()} />}
        </div>
      </div>
    );
  }
  if (!user.data) return <div className="main-pane"><Loading label="Loading the user" /></div>;
  const u = user.data;
  const name = userName(u);

  const refresh = async (): Promise<void> => {
    await Promise.all([user.refetch(), invalidateAccess(client)]);
  };
  const setStatusTo = async (next: string, note: string): Promise<void> => {
    await request('PATCH', `/users/${encodeURIComponent(id)}`, { body: { status: next } });
    await refresh();
    setStatus({ busy: false, error: null, note });
  };
  const reactivate = async (): Promise<void> => {
    setStatus({ busy: true, error: null, note: null });
    try {
      await setStatusTo('active', `${name} is active again and can sign in.`);
    } catch (err) {
      setStatus({ busy: false, error: err, note: null });
    }
  };
  const resend = async (): Promise<void> => {
    setStatus({ busy: true, error: null, note: null });
    try {
      await request('POST', '/users/invite', { body: { email: u.email, role: u.role } });
      setStatus({ busy: false, error: null, note: `The invitation was sent again to ${u.email}.` });
    } catch (err) {
      setStatus({ busy: false, error: err, note: null });
    }
  };

  return (
    <div className="main-pane">
      <header className="page-header record-header">
        <Link className="btn btn-ghost btn-small" href="/users" aria-label="Back to users">←</Link>
        <h1>{name}</h1>
        <span className={`badge status-${u.status}`}>{statusLabel(u.status)}</span>
        <span className="header-spacer" />
        <Link className="btn" href={`/view-as?user=${encodeURIComponent(u.id)}`}>View as {name}</Link>
        <button type="button" className="btn btn-danger" onClick={() => setConfirm('delete')}>Delete user</button>
      </header>
      <div className="page-body">
        <div className="access-cards">
          <DetailsCard key={u.id} user={u} onSaved={refresh} />
          <div className="access-side">
            <section className="access-card" aria-labelledby="user-status-title">
              <h2 id="user-status-title">Status</h2>
              <p className="status-line"><span className={`badge status-${u.status}`}>{statusLabel(u.status)}</span> <span>{STATUS_TEXT[u.status] ?? ''}</span></p>
              <div className="actions-row">
                {u.status === 'active' && <button type="button" className="btn" onClick={() => setConfirm('suspend')}>Suspend</button>}
                {(u.status === 'active' || u.status === 'suspended') && <button type="button" className="btn" onClick={() => setConfirm('archive')}>Archive</button>}
                {(u.status === 'suspended' || u.status === 'archived') && <button type="button" className="btn btn-primary" disabled={status.busy} onClick={() => void reactivate()}>Reactivate</button>}
                {u.status === 'invited' && u.email && u.role && <button type="button" className="btn" disabled={status.busy} onClick={() => void resend()}>Send the invitation again</button>}
              </div>
              {status.note && <p className="notice notice-success" role="status">{status.note}</p>}
              {status.error !== null && <ErrorNotice error={status.error} />}
            </section>
            <section className="access-card" aria-labelledby="user-tfa-title">
              <h2 id="user-tfa-title">Two-factor authentication</h2>
              <p>{u.tfa_enabled ? 'On: signing in asks for a one-time code from their authenticator app.' : 'Off.'}</p>
              {u.tfa_enabled && (
                <div className="actions-row">
                  <button type="button" className="btn" onClick={() => setConfirm('tfa')}>Reset two-factor</button>
                </div>
              )}
            </section>
            <section className="access-card" aria-labelledby="user-signin-title">
              <h2 id="user-signin-title">Sign-in</h2>
              <dl className="facts">
                <dt>Last access</dt><dd>{when(u.last_access)}</dd>
                <dt>Signs in with</dt><dd>{!u.provider || u.provider === 'default' ? 'Email and password' : u.provider}</dd>
                <dt>Password change due</dt><dd>{u.require_password_change ? 'Yes, at the next sign-in' : 'No'}</dd>
              </dl>
            </section>
          </div>
        </div>
      </div>
      {confirm === 'suspend' && (
        <ConfirmDialog title={`Suspend ${name}?`} confirmLabel="Suspend" onClose={() => setConfirm(null)}
          onConfirm={async () => { await setStatusTo('suspended', `${name} is suspended.`); setConfirm(null); }}>
          <p>They are signed out everywhere at once and cannot sign in until an administrator reactivates the account. Nothing they made is removed.</p>
        </ConfirmDialog>
      )}
      {confirm === 'archive' && (
        <ConfirmDialog title={`Archive ${name}?`} confirmLabel="Archive" onClose={() => setConfirm(null)}
          onConfirm={async () => { await setStatusTo('archived', `${name} is archived.`); setConfirm(null); }}>
          <p>An archived account cannot sign in and is kept for the record. You can reactivate it later.</p>
        </ConfirmDialog>
      )}
      {confirm === 'tfa' && (
        <ConfirmDialog title={`Reset two-factor for ${name}?`} confirmLabel="Reset two-factor" onClose={() => setConfirm(null)}
          onConfirm={async () => {
            await request('POST', `/users/${encodeURIComponent(id)}/tfa/disable`);
            await refresh();
            setStatus({ busy: false, error: null, note: `Two-factor is off for ${name}. They can set it up again from their profile.` });
            setConfirm(null);
          }}>
          <p>Use this when they lost their authenticator. Two-factor is turned off and their sessions end; they sign in with their password alone until they set it up again (a role that enforces two-factor asks them to at once).</p>
        </ConfirmDialog>
      )}
      {confirm === 'delete' && (
        <ConfirmDialog title={`Delete ${name}?`} confirmLabel="Delete user" typeToConfirm={u.email ?? u.id} onClose={() => setConfirm(null)}
          onConfirm={async () => {
            await request('DELETE', `/users/${encodeURIComponent(id)}`);
            await invalidateAccess(client);
            navigate('/users');
          }}>
          <p>The account is removed for good. What they made stays, and the activity log keeps their id. To stop someone signing in without deleting, suspend them instead.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

const STATUS_TEXT: Record<string, string> = {
  active: 'Can sign in.',
  invited: 'Has not accepted the invitation yet.',
  suspended: 'Cannot sign in until reactivated.',
  archived: 'Cannot sign in; kept for the record.',
};

function DetailsCard({ user, onSaved }: { user: UserRecord; onSaved(): Promise<void> }) {
  const roles = useRoleOptions();
  const [draft, setDraft] = useState<Draft>(() => draftOf(user));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const changes = changesOf(user, draft);
  const dirty = Object.keys(changes).length > 0;
  useEffect(() => { if (dirty) setSaved(false); }, [dirty]);

  const set = <K extends keyof Draft>(key: K) => (value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setErrors((e) => (e[key] ? { ...e, [key]: '' } : e));
  };

  async function save(e?: FormEvent): Promise<void> {
    e?.preventDefault();
    if (!dirty || saving) return;
    if (!EMAIL.test(draft.email.trim())) {
      setErrors({ email: 'Enter an email address like name@example.com.' });
      return;
    }
    setSaving(true);
    setErrors({});
    setError(null);
    try {
      await request('PATCH', `/users/${encodeURIComponent(user.id)}`, { body: changes });
      await onSaved();
      setDraft((d) => ({ ...d, password: '', mustChange: true }));
      setSaved(true);
    } catch (err) {
      const { fields, rest } = splitError(err, EDITABLE);
      if (rest instanceof ApiError && 'password' in changes && /password/i.test(rest.message)) setErrors({ password: rest.message });
      else {
        setErrors(fields);
        setError(rest);
      }
    } finally {
      setSaving(false);
    }
  }

  return (
    <form className="access-card" onSubmit={(e) => void save(e)} noValidate aria-labelledby="user-details-title">
      <h2 id="user-details-title">Details</h2>
      <div className="form-grid">
        <TextField label="First name" value={draft.first_name} onChange={set('first_name')} error={errors.first_name} autoComplete="off" maxLength={50} />
        <TextField label="Last name" value={draft.last_name} onChange={set('last_name')} error={errors.last_name} autoComplete="off" maxLength={50} />
        <TextField className="full" label="Email" type="email" value={draft.email} onChange={set('email')} error={errors.email} autoComplete="off" maxLength={128} />
        <SelectField className="full" label="Role" value={draft.role} onChange={set('role')} error={errors.role}
          note="The role's policies decide what they may do; policies can also be attached to a role's parent.">
          <option value="">No role</option>
          {(roles.data ?? []).map((r) => <option key={r.id} value={r.id}>{recordName(r.name)}</option>)}
          {draft.role && roles.data && !roles.data.some((r) => r.id === draft.role) && <option value={draft.role}>{draft.role}</option>}
        </SelectField>
        <TextField className="full" label="New password" type="password" value={draft.password} onChange={set('password')} error={errors.password}
          autoComplete="new-password" note="Leave empty to keep their password. Setting one signs them out everywhere." />
        {draft.password !== '' && (
          <div className="full">
            <CheckField label="Ask for a new password at the next sign-in" checked={draft.mustChange} onChange={set('mustChange')} />
          </div>
        )}
      </div>
      {error !== null && <ErrorNotice error={error} onRetry={() => void save()} />}
      <div className="actions-row">
        <button type="submit" className="btn btn-primary" disabled={!dirty || saving}>{saving ? 'Saving…' : 'Save changes'}</button>
        <button type="button" className="btn btn-ghost" disabled={!dirty || saving} onClick={() => { setDraft(draftOf(user)); setErrors({}); setError(null); }}>Discard changes</button>
        {saved && !dirty && <span className="notice-inline" role="status">Saved.</span>}
      </div>
    </form>
  );
}
