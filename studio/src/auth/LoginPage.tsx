/** Sign in with email and password; when the account has two-factor on, a second step asks for the one-time code
 * (the password stays in memory, not in the page). Wrong password, suspended and locked-out accounts each get their
 * own message. */
import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError, messageOf } from '../api/errors.ts';
import { useSession } from '../app/session.tsx';
import { PublicLayout } from './PublicLayout.tsx';

export function LoginPage() {
  const { signIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [needsOtp, setNeedsOtp] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const otpInput = useRef<HTMLInputElement>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn({ email, password, ...(needsOtp ? { otp } : {}) });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'INVALID_OTP' && !needsOtp) {
        setNeedsOtp(true);
        setTimeout(() => otpInput.current?.focus(), 0);
      } else {
        setError(messageOf(err));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <PublicLayout title={needsOtp ? 'Enter your one-time code' : 'Sign in'}>
      <form onSubmit={submit} noValidate aria-describedby={error ? 'login-error' : undefined}>
        {!needsOtp && (
          <>
            <div className="field">
              <label htmlFor="login-email">Email</label>
              <input id="login-email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
            </div>
            <div className="field">
              <label htmlFor="login-password">Password</label>
              <input id="login-password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
            </div>
          </>
        )}
        {needsOtp && (
          <div className="field">
            <label htmlFor="login-otp">One-time code</label>
            <input id="login-otp" ref={otpInput} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]*" maxLength={6} required value={otp}
              onChange={(e) => setOtp(e.target.value.replace(/\D/g, ''))} />
            <span className="field-note">The six digits your authenticator app shows for this account.</span>
          </div>
        )}
        {error && <div id="login-error" className="notice notice-error" role="alert">{error}</div>}
        <button type="submit" className="btn btn-primary" disabled={busy || !email || !password || (needsOtp && otp.length < 6)}>
          {busy ? 'Signing in…' : needsOtp ? 'Verify' : 'Sign in'}
        </button>
        <div className="links">
          {needsOtp
            ? <button type="button" className="btn btn-ghost btn-small" onClick={() => { setNeedsOtp(false); setOtp(''); setError(null); }}>Back</button>
            : <Link href="/reset-password">Forgot your password?</Link>}
        </div>
      </form>
    </PublicLayout>
  );
}
