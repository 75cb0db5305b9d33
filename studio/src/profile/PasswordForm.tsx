/** A new password: PATCH /users/me {password, current_password} (and `otp` when two-factor is on). The server
 * ends the user's other sessions; this one continues. Errors land on their fields; nothing typed is cleared on
 * a failure. */
import { useId, useState, type FormEvent } from 'react';
import { request } from '../api/client.ts';
import { ApiError, messageOf } from '../api/errors.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';

type Field = 'current' | 'password' | 'confirm' | 'otp';

export function PasswordForm({ tfaEnabled }: { tfaEnabled: boolean }) {
  const uid = useId();
  const [values, setValues] = useState<Record<Field, string>>({ current: '', password: '', confirm: '', otp: '' });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);

  const set = (k: Field, v: string) => {
    setValues((x) => ({ ...x, [k]: v }));
    setErrors((e) => (e[k] ? { ...e, [k]: undefined } : e));
    setDone(false);
  };

  async function submit(e?: FormEvent) {
    e?.preventDefault();
    const local: Partial<Record<Field, string>> = {};
    if (!values.current) local.current = 'Enter your current password.';
    if (!values.password) local.password = 'Enter a new password.';
    if (values.password && values.confirm !== values.password) local.confirm = 'The two passwords differ.';
    if (tfaEnabled && !/^\d{6}$/.test(values.otp.trim())) local.otp = 'Enter the 6-digit code from your authenticator app.';
    if (Object.keys(local).length) {
      setErrors(local);
      return;
    }
    setBusy(true);
    setErrors({});
    setFormError(null);
    try {
      await request('PATCH', '/users/me', { body: { password: values.password, current_password: values.current, ...(tfaEnabled ? { otp: values.otp.trim() } : {}) } });
      setValues({ current: '', password: '', confirm: '', otp: '' });
      setDone(true);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'INVALID_CREDENTIALS') {
        setErrors({ current: /locked/i.test(err.message) ? err.message : 'That is not your current password.' });
      } else if (err instanceof ApiError && err.code === 'INVALID_OTP') {
        setErrors({ otp: messageOf(err) });
      } else if (err instanceof ApiError && err.code === 'INVALID_PAYLOAD' && /password/i.test(err.message) && !/current/i.test(err.message)) {
        setErrors({ password: err.message });
      } else if (err instanceof ApiError && err.fieldErrors().password) {
        setErrors({ password: err.fieldErrors().password });
      } else {
        setFormError(err);
      }
    } finally {
      setBusy(false);
    }
  }

  const props = (k: Field) => ({
    id: `${uid}-${k}`,
    value: values[k],
    onChange: (e: { target: { value: string } }) => set(k, e.target.value),
    'aria-invalid': errors[k] ? true : undefined,
    'aria-describedby': errors[k] ? `${uid}-${k}-error` : undefined,
  });
  const error = (k: Field) => (errors[k] ? <p className="field-error" id={`${uid}-${k}-error`}>{errors[k]}</p> : null);

  return (
    <form className="profile-card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${uid}-title`}>
      <h2 id={`${uid}-title`}>Password</h2>
      <p className="field-note">Changing it signs you out everywhere else; this window stays signed in.</p>
      <div className="form-grid">
        <div className="field full">
          <label htmlFor={`${uid}-current`}>Current password</label>
          <input {...props('current')} type="password" autoComplete="current-password" />
          {error('current')}
        </div>
        <div className="field">
          <label htmlFor={`${uid}-password`}>New password</label>
          <input {...props('password')} type="password" autoComplete="new-password" />
          {error('password')}
        </div>
        <div className="field">
          <label htmlFor={`${uid}-confirm`}>Repeat the new password</label>
          <input {...props('confirm')} type="password" autoComplete="new-password" />
          {error('confirm')}
        </div>
        {tfaEnabled && (
          <div className="field">
            <label htmlFor={`${uid}-otp`}>Code from your authenticator app</label>
            <input {...props('otp')} inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
            {error('otp')}
          </div>
        )}
      </div>
      {formError !== null && <ErrorNotice error={formError} onRetry={() => void submit()} />}
      <div className="actions-row">
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Changing…' : 'Change password'}</button>
        {done && <span className="notice-inline" role="status">Password changed.</span>}
      </div>
    </form>
  );
}
