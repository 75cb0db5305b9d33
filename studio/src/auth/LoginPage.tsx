/** Sign in with email and password; when the account has two-factor on, a second step asks for the one-time code
 * (the password stays in memory, not in the page). Wrong password, suspended and locked-out accounts each get their
 * own message. The providers of GET /auth (./sign-on.tsx) follow the form once they are known, which the form does
 * not wait for: an LDAP directory turns the form into its own (username and password), OpenID and OAuth2 leave for
 * the provider's page. A refused external sign-in comes back here with `?reason=`, told above the form. */
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError, messageOf } from '../api/errors.ts';
import { useSession } from '../app/session.tsx';
import { PublicLayout } from './PublicLayout.tsx';
import { arrivedWithReason, forgetReason, leaveFor, OtherSignOn, useSignOnProviders, type SignOnProvider } from './sign-on.tsx';

export function LoginPage() {
  const { signIn, signInWithDirectory } = useSession();
  const { providers, disableDefault } = useSignOnProviders();
  const [chosen, setChosen] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [needsOtp, setNeedsOtp] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [refused] = useState(arrivedWithReason);
  useEffect(forgetReason, []);

  // Without the password form, the first directory is the form.
  const directory = providers.find((p) => p.driver === 'ldap' && p.name === chosen)
    ?? (disableDefault ? providers.find((p) => p.driver === 'ldap') : undefined);
  const showForm = directory !== undefined || !disableDefault;
  const user = directory ? identifier : email;

  function choose(provider: SignOnProvider | null) {
    if (provider && provider.driver !== 'ldap') {
      leaveFor(provider, new URLSearchParams(location.search).get('next'));
      return;
    }
    setChosen(provider?.name ?? null);
    setNeedsOtp(false);
    setOtp('');
    setError(null);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const code = needsOtp ? { otp } : {};
      if (directory) await signInWithDirectory(directory.name, { identifier, password, ...code });
      else await signIn({ email, password, ...code });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'INVALID_OTP' && !needsOtp) {
        setNeedsOtp(true);
      } else if (directory && err instanceof ApiError && err.code === 'INVALID_CREDENTIALS') {
        // The plain refusal in the directory's words; the server's own sentences (an unlinked account with the same
        // email, a lock-out) as they are.
        setError(err.message === 'Invalid user credentials.' ? 'Wrong username or password.' : err.message);
      } else if (directory && err instanceof ApiError && err.code === 'SERVICE_UNAVAILABLE' && /LDAP directory/.test(err.message)) {
        setError(`${directory.label} cannot be reached right now. Try again in a moment; if it keeps failing, tell an administrator.`);
      } else {
        setError(messageOf(err));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <PublicLayout title={needsOtp ? 'Enter your one-time code' : directory ? `Sign in with ${directory.label}` : 'Sign in'}>
      {refused && <div className="notice notice-error" role="alert">{refused}</div>}
      {showForm && (
        <form onSubmit={submit} noValidate aria-describedby={error ? 'login-error' : undefined}>
          {!needsOtp && (
            <>
              {directory
                ? (
                  // Keyed: switching remounts the field, so that it takes the focus (autoFocus) from the button that left.
                  <div className="field" key="identifier">
                    <label htmlFor="login-identifier">Username</label>
                    <input id="login-identifier" autoComplete="username" autoCapitalize="none" spellCheck={false} required value={identifier} onChange={(e) => setIdentifier(e.target.value)} autoFocus />
                  </div>
                )
                : (
                  <div className="field" key="email">
                    <label htmlFor="login-email">Email</label>
                    <input id="login-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
                  </div>
                )}
              <div className="field">
                <label htmlFor="login-password">Password</label>
                <input id="login-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
              </div>
            </>
          )}
          {needsOtp && (
            <div className="field">
              <label htmlFor="login-otp">One-time code</label>
              <input id="login-otp" autoFocus inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]*" maxLength={6} required value={otp}
                onChange={(e) => setOtp(e.target.value.replace(/\D/g, ''))} />
              <span className="field-note">The six digits your authenticator app shows for this account.</span>
            </div>
          )}
          {error && <div id="login-error" className="notice notice-error" role="alert">{error}</div>}
          <button type="submit" className="btn btn-primary" disabled={busy || !user || !password || (needsOtp && otp.length < 6)}>
            {busy ? 'Signing in…' : needsOtp ? 'Verify' : 'Sign in'}
          </button>
          {(needsOtp || !directory) && (
            <div className="links">
              {needsOtp
                ? <button type="button" className="btn btn-ghost btn-small" onClick={() => { setNeedsOtp(false); setOtp(''); setError(null); }}>Back</button>
                : <Link href="/reset-password">Forgot your password?</Link>}
            </div>
          )}
        </form>
      )}
      {!needsOtp && <OtherSignOn providers={providers} current={directory?.name ?? null} passwordAllowed={!disableDefault} alone={!showForm} onChoose={choose} />}
    </PublicLayout>
  );
}
