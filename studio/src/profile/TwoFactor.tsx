/** Two-factor sign-in. Setting it up: the password (POST /users/me/tfa/generate {password} -> {secret, otpauth_url}),
 * then the QR code of the otpauth URL (and the secret as text, for typing into an app) and a code from the app to
 * confirm (POST /users/me/tfa/enable {secret, otp}); nothing changes on the account until the code is right.
 * Turning it off takes a current code (POST /users/me/tfa/disable {otp}), unless a policy enforces it. */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { request } from '../api/client.ts';
import { ApiError, messageOf } from '../api/errors.ts';
import { useSession } from '../app/session.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { qrDataUrl } from './qr.ts';

type Step = { kind: 'idle' } | { kind: 'password' } | { kind: 'confirm'; secret: string; url: string };

export function TwoFactor({ enabled, enforced }: { enabled: boolean; enforced: boolean }) {
  const { reloadMe } = useSession();
  const uid = useId();
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [fieldError, setFieldError] = useState<{ field: 'password' | 'otp'; message: string } | null>(null);
  const [formError, setFormError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const focusRef = useRef<HTMLInputElement>(null);
  // Focus follows the set-up's steps (not the page load).
  const focusNext = useRef(false);
  useEffect(() => {
    if (!focusNext.current) return;
    focusNext.current = false;
    focusRef.current?.focus();
  }, [step.kind]);

  const reset = () => {
    setStep({ kind: 'idle' });
    setPassword('');
    setOtp('');
    setFieldError(null);
    setFormError(null);
  };

  async function run(action: () => Promise<void>, otpField: boolean) {
    setBusy(true);
    setFieldError(null);
    setFormError(null);
    try {
      await action();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'INVALID_OTP') setFieldError({ field: 'otp', message: messageOf(err) });
      else if (err instanceof ApiError && err.code === 'INVALID_CREDENTIALS' && !otpField) setFieldError({ field: 'password', message: /locked/i.test(err.message) ? err.message : 'That is not your password.' });
      else if (err instanceof ApiError && err.code === 'INVALID_PAYLOAD' && /password/i.test(err.message) && !otpField) setFieldError({ field: 'password', message: err.message });
      else setFormError(err);
    } finally {
      setBusy(false);
    }
  }

  const generate = (e: FormEvent) => {
    e.preventDefault();
    if (!password) {
      setFieldError({ field: 'password', message: 'Enter your password.' });
      return;
    }
    void run(async () => {
      const data = await request<{ secret: string; otpauth_url: string }>('POST', '/users/me/tfa/generate', { body: { password } });
      setPassword('');
      setOtp('');
      focusNext.current = true;
      setStep({ kind: 'confirm', secret: data.secret, url: data.otpauth_url });
    }, false);
  };

  const enable = (e: FormEvent) => {
    e.preventDefault();
    if (step.kind !== 'confirm') return;
    if (!/^\d{6}$/.test(otp.trim())) {
      setFieldError({ field: 'otp', message: 'Enter the 6-digit code your app shows.' });
      return;
    }
    void run(async () => {
      await request('POST', '/users/me/tfa/enable', { body: { secret: step.secret, otp: otp.trim() } });
      reset();
      await reloadMe();
      setNotice('Two-factor sign-in is on. From now on, signing in asks for a code from your app.');
    }, true);
  };

  const disable = (e: FormEvent) => {
    e.preventDefault();
    if (!/^\d{6}$/.test(otp.trim())) {
      setFieldError({ field: 'otp', message: 'Enter the 6-digit code your app shows.' });
      return;
    }
    void run(async () => {
      await request('POST', '/users/me/tfa/disable', { body: { otp: otp.trim() } });
      reset();
      await reloadMe();
      setNotice('Two-factor sign-in is off.');
    }, true);
  };

  const errorFor = (field: 'password' | 'otp') => (fieldError?.field === field ? <p className="field-error" id={`${uid}-${field}-error`}>{fieldError.message}</p> : null);
  const invalid = (field: 'password' | 'otp') => ({
    'aria-invalid': fieldError?.field === field ? true : undefined,
    'aria-describedby': fieldError?.field === field ? `${uid}-${field}-error` : undefined,
  });

  const otpInput = (
    <div className="field otp-field">
      <label htmlFor={`${uid}-otp`}>One-time code</label>
      <input ref={focusRef} id={`${uid}-otp`} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={otp}
        onChange={(e) => { setOtp(e.target.value); setFieldError(null); }} {...invalid('otp')} />
      {errorFor('otp')}
    </div>
  );

  return (
    <section className="profile-card" aria-labelledby={`${uid}-title`}>
      <div className="card-head">
        <h2 id={`${uid}-title`}>Two-factor sign-in</h2>
        <span className={enabled ? 'badge badge-on' : 'badge'}>{enabled ? 'On' : 'Off'}</span>
      </div>
      {notice && <p className="notice notice-success" role="status">{notice}</p>}
      {enabled ? (
        enforced ? <p className="field-note">Your access policy requires two-factor sign-in, so it can’t be turned off here.</p> : (
          <form onSubmit={disable} noValidate className="inline-form">
            <p className="field-note">To turn it off, enter a current code from your authenticator app.</p>
            {otpInput}
            <button type="submit" className="btn btn-danger" disabled={busy}>{busy ? 'Turning off…' : 'Turn off two-factor'}</button>
          </form>
        )
      ) : step.kind === 'idle' ? (
        <>
          <p className="field-note">Signing in will also ask for a code from an authenticator app on your phone.{enforced ? ' Your access policy requires it.' : ''}</p>
          <div className="actions-row">
            <button type="button" className="btn" onClick={() => { setNotice(null); focusNext.current = true; setStep({ kind: 'password' }); }}>Set up two-factor…</button>
          </div>
        </>
      ) : step.kind === 'password' ? (
        <form onSubmit={generate} noValidate className="inline-form">
          <div className="field">
            <label htmlFor={`${uid}-password`}>Your password</label>
            <input ref={focusRef} id={`${uid}-password`} type="password" autoComplete="current-password" value={password}
              onChange={(e) => { setPassword(e.target.value); setFieldError(null); }} {...invalid('password')} />
            {errorFor('password')}
          </div>
          <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Checking…' : 'Continue'}</button>
          <button type="button" className="btn btn-ghost" onClick={reset}>Cancel</button>
        </form>
      ) : (
        <form onSubmit={enable} noValidate className="tfa-setup">
          <img className="qr" src={qrDataUrl(step.url)} width={176} height={176} alt="QR code to add this account to an authenticator app" />
          <div className="tfa-steps">
            <ol>
              <li>Scan the QR code with your authenticator app, or type the secret key into it.</li>
              <li>Enter the 6-digit code the app shows.</li>
            </ol>
            <div className="field">
              <label htmlFor={`${uid}-secret`}>Secret key</label>
              <input id={`${uid}-secret`} className="secret" readOnly value={step.secret} onFocus={(e) => e.currentTarget.select()} />
            </div>
            {otpInput}
            <div className="actions-row">
              <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Checking…' : 'Turn on two-factor'}</button>
              <button type="button" className="btn btn-ghost" onClick={reset}>Cancel</button>
            </div>
          </div>
        </form>
      )}
      {formError !== null && <ErrorNotice error={formError} />}
    </section>
  );
}
