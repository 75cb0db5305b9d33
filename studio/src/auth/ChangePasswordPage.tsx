/** The forced change screen: an admin set this user's password (svc_users.require_password_change), so the user
 * picks their own before anything else. The current password proves it is them (PATCH /users/me). */
import { useState, type FormEvent } from 'react';
import { request } from '../api/client.ts';
import { ApiError, messageOf } from '../api/errors.ts';
import { useSession } from '../app/session.tsx';
import { PublicLayout } from './PublicLayout.tsx';
import { NewPasswordFields, useNewPassword } from './password-fields.tsx';

export function ChangePasswordPage() {
  const { passwordChanged, reloadMe, signOut } = useSession();
  const [current, setCurrent] = useState('');
  const pw = useNewPassword();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await request('PATCH', '/users/me', { body: { password: pw.password, current_password: current }, query: { fields: ['id'] } });
      passwordChanged();
      await reloadMe();
    } catch (err) {
      setError(err instanceof ApiError && err.code === 'INVALID_CREDENTIALS' ? 'The current password is not right.' : messageOf(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <PublicLayout title="Choose your own password">
      <p className="muted">An administrator set your password. Choose a new one that only you know to continue.</p>
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="change-current">Current password</label>
          <input id="change-current" type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} autoFocus />
        </div>
        <NewPasswordFields state={pw} idPrefix="change" />
        {error && <div className="notice notice-error" role="alert">{error}</div>}
        <button type="submit" className="btn btn-primary" disabled={busy || !current || !pw.ready}>Change password</button>
        <div className="links"><button type="button" className="btn btn-ghost btn-small" onClick={() => void signOut()}>Sign out</button></div>
      </form>
    </PublicLayout>
  );
}
