/** The invitation link (?token=) from the invite mail: the invited person chooses a password and can sign in. */
import { Link } from 'wouter';
import { request } from '../api/client.ts';
import { PublicLayout } from './PublicLayout.tsx';
import { NewPasswordFields, useNewPassword } from './password-fields.tsx';
import { useFormAction } from './use-form-action.ts';

export function AcceptInvitePage() {
  const token = new URLSearchParams(location.search).get('token');
  const pw = useNewPassword();
  const { state, error, submit } = useFormAction(() => request('POST', '/users/invite/accept', { body: { token, password: pw.password } }));
  return (
    <PublicLayout title="Accept your invitation">
      {!token && <div className="notice notice-error" role="alert">This link has no invitation in it. Open the link from the mail again.</div>}
      {state === 'done' ? (
        <div className="notice notice-success" role="status">Welcome aboard. <Link href="/login">Sign in</Link> with your new password.</div>
      ) : token && (
        <form onSubmit={submit} noValidate>
          <p className="muted">Choose the password you will sign in with.</p>
          <NewPasswordFields state={pw} idPrefix="invite" />
          {error && <div className="notice notice-error" role="alert">{error}</div>}
          <button type="submit" className="btn btn-primary" disabled={state === 'busy' || !pw.ready}>Set password and continue</button>
        </form>
      )}
    </PublicLayout>
  );
}
