/** A static API token for scripts (Authorization: Bearer <token>). PATCH /users/me takes `token` (a self-editable
 * field) but the API never reads it back (the field is concealed and not readable, even by the user), so the
 * Studio can't tell whether one is set: it makes a new one here (32 random bytes from crypto.getRandomValues),
 * saves it, replacing any earlier token, and shows it once with a copy button; "Remove" sets it to null. */
import { useId, useRef, useState } from 'react';
import { request } from '../api/client.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';

function newToken(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

type State = { kind: 'idle' } | { kind: 'made'; token: string } | { kind: 'removed' };

export function StaticToken() {
  const uid = useId();
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const [busy, setBusy] = useState<'make' | 'remove' | null>(null);
  const [error, setError] = useState<{ err: unknown; retry: () => void } | null>(null);
  const input = useRef<HTMLInputElement>(null);

  async function save(token: string | null) {
    setBusy(token ? 'make' : 'remove');
    setError(null);
    setCopied(null);
    try {
      await request('PATCH', '/users/me', { body: { token } });
      setState(token ? { kind: 'made', token } : { kind: 'removed' });
    } catch (err) {
      setError({ err, retry: () => void save(token) });
    } finally {
      setBusy(null);
    }
  }

  async function copy(token: string) {
    try {
      await navigator.clipboard.writeText(token);
      setCopied('yes');
    } catch {
      input.current?.focus();
      input.current?.select();
      setCopied('no');
    }
  }

  return (
    <section className="profile-card" aria-labelledby={`${uid}-title`}>
      <h2 id={`${uid}-title`}>Static API token</h2>
      <p className="field-note">
        For scripts and integrations: send it as <code>Authorization: Bearer &lt;token&gt;</code>. It acts as you, with your
        permissions, until it is replaced or removed. The server never shows a saved token again, so it is shown only once,
        right after it is made; a new token replaces any earlier one.
      </p>
      {state.kind === 'made' && (
        <div className="token-once notice notice-success">
          <span className="visually-hidden" role="status">A new token was made and saved.</span>
          <div className="field token-field">
            <label htmlFor={`${uid}-token`}>Your new token (copy it now: it won’t be shown again)</label>
            <div className="token-row">
              <input ref={input} id={`${uid}-token`} className="secret" readOnly value={state.token} onFocus={(e) => e.currentTarget.select()} />
              <button type="button" className="btn" onClick={() => void copy(state.token)}>Copy</button>
            </div>
            {copied === 'yes' && <span className="field-note" role="status">Copied to the clipboard.</span>}
            {copied === 'no' && <span className="field-note" role="status">The browser did not allow copying: the token is selected, press Ctrl+C (⌘C).</span>}
          </div>
          <div><button type="button" className="btn btn-small" onClick={() => setState({ kind: 'idle' })}>I have copied it, hide it</button></div>
        </div>
      )}
      {state.kind === 'removed' && <p className="notice" role="status">The token is removed: requests that use it are refused.</p>}
      {error && <ErrorNotice error={error.err} onRetry={error.retry} />}
      <div className="actions-row">
        <button type="button" className="btn" disabled={busy !== null} onClick={() => void save(newToken())}>
          {busy === 'make' ? 'Saving…' : state.kind === 'made' ? 'Make another token' : 'Generate a token'}
        </button>
        <button type="button" className="btn btn-danger" disabled={busy !== null || state.kind === 'removed'} onClick={() => void save(null)}>
          {busy === 'remove' ? 'Removing…' : 'Remove token'}
        </button>
      </div>
    </section>
  );
}
