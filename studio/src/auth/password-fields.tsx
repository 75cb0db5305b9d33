/** A new password typed twice; the server's password policy has the last word (its message shows as it is). */
import { useState } from 'react';

export function useNewPassword() {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const mismatch = confirm !== '' && password !== confirm;
  return { password, confirm, setPassword, setConfirm, mismatch, ready: password !== '' && password === confirm };
}

export function NewPasswordFields({ state, idPrefix }: { state: ReturnType<typeof useNewPassword>; idPrefix: string }) {
  return (
    <>
      <div className="field">
        <label htmlFor={`${idPrefix}-new`}>New password</label>
        <input id={`${idPrefix}-new`} type="password" autoComplete="new-password" required value={state.password} onChange={(e) => state.setPassword(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-confirm`}>Repeat the new password</label>
        <input id={`${idPrefix}-confirm`} type="password" autoComplete="new-password" required value={state.confirm}
          aria-invalid={state.mismatch} aria-describedby={state.mismatch ? `${idPrefix}-mismatch` : undefined} onChange={(e) => state.setConfirm(e.target.value)} />
        {state.mismatch && <span id={`${idPrefix}-mismatch`} className="field-error">The two passwords differ.</span>}
      </div>
    </>
  );
}
