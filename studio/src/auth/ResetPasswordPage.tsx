/** Forgotten password: without a token, ask for the reset mail (the answer never says whether the address has an
 * account); with the token from the mail's link (?token=), choose the new password. */
import { useState } from 'react';
import { Link } from 'wouter';
import { request } from '../api/client.ts';
import { PublicLayout } from './PublicLayout.tsx';
import { NewPasswordFields, useNewPassword } from './password-fields.tsx';
import { useFormAction } from './use-form-action.ts';

export function ResetPasswordPage() {
  const token = new URLSearchParams(location.search).get('token');
  return token ? <ChooseNewPassword token={token} /> : <RequestReset />;
}

function RequestReset() {
  const [email, setEmail] = useState('');
  // The mail links to PUBLIC_URL/admin/reset-password: this page, wherever the server says it is.
  const { state, error, submit } = useFormAction(() => request('POST', '/auth/password/request', { body: { email } }));
  return (
    <PublicLayout title="Reset your password">
      {state === 'done' ? (
        <div className="notice notice-success" role="status">If an account uses {email}, a mail with a link to choose a new password is on its way.</div>
      ) : (
        <form onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor="reset-email">Email</label>
            <input id="reset-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
          </div>
          {error && <div className="notice notice-error" role="alert">{error}</div>}
          <button type="submit" className="btn btn-primary" disabled={state === 'busy' || !email}>Send the reset link</button>
        </form>
      )}
      <div className="links"><Link href="/login">Back to sign in</Link></div>
    </PublicLayout>
  );
}

function ChooseNewPassword({ token }: { token: string }) {
  const pw = useNewPassword();
  const { state, error, submit } = useFormAction(() => request('POST', '/auth/password/reset', { body: { token, password: pw.password } }));
  return (
    <PublicLayout title="Choose a new password">
      {state === 'done' ? (
        <div className="notice notice-success" role="status">Your password is changed. <Link href="/login">Sign in</Link> with it.</div>
      ) : (
        <form onSubmit={submit} noValidate>
          <NewPasswordFields state={pw} idPrefix="reset" />
          {error && <div className="notice notice-error" role="alert">{error}</div>}
          <button type="submit" className="btn btn-primary" disabled={state === 'busy' || !pw.ready}>Set the new password</button>
        </form>
      )}
    </PublicLayout>
  );
}
