/** Send one test message through a provider (POST /notify/test-send) and show what happened: the provider's
 * acceptance, or its refusal in its own words. Recipients start as the signed-in user (an address for email, the
 * user for in-app). Nothing is logged; the provider is used even when disabled. */
import { useId, useState } from 'react';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { useSession } from '../../app/session.tsx';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { channelLabel, type Provider } from '../api.ts';

const ARTICLE: Record<string, string> = { email: 'An', inapp: 'An', chat: 'A' };

const RECIPIENT_NOTE: Record<string, string> = {
  email: 'Email addresses, separated by commas.',
  inapp: 'Users, by email address or id, separated by commas: each gets a notification in the bell.',
  chat: 'Passed to the chat endpoint as given, separated by commas.',
};

export function TestSendDialog({ provider, onClose }: { provider: Provider; onClose(): void }) {
  const { me } = useSession();
  const ids = useId();
  const [recipients, setRecipients] = useState(provider.channel === 'chat' ? '' : me?.email ?? '');
  const [subject, setSubject] = useState('Test message');
  const [content, setContent] = useState(provider.channel === 'email' ? '<p>This is a test message sent from the Studio.</p>' : 'This is a test message sent from the Studio.');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ success: boolean; message: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const fieldErrors = error instanceof ApiError ? error.fieldErrors() : {};
  // "recipients" or "recipients[2]" (the address at fault).
  const recipientsError = Object.entries(fieldErrors).find(([k]) => k.startsWith('recipients'))?.[1];

  async function send(): Promise<void> {
    if (busy) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const list = recipients.split(/[,;\n]/).map((r) => r.trim()).filter(Boolean);
      setResult(await request<{ success: boolean; message: string }>('POST', '/notify/test-send', {
        body: { provider_id: provider.id, recipients: list, subject, content },
      }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog title={`Test send through ${provider.name}`} onClose={onClose} onSubmit={() => void send()} wide
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Close</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Sending…' : 'Send test'}</button>
      </>}>
      <p className="muted">{ARTICLE[provider.channel] ?? 'A'} {channelLabel(provider.channel).toLowerCase()} message through this provider only, sent now and not logged{provider.enabled ? '' : ' (it is disabled, but tests still use it)'}.</p>
      <div className="field">
        <label htmlFor={`${ids}-to`}>Recipients</label>
        <input id={`${ids}-to`} value={recipients} onChange={(e) => setRecipients(e.target.value)} aria-describedby={`${ids}-to-note`}
          aria-invalid={recipientsError ? true : undefined} autoComplete="off" />
        <span className="field-note" id={`${ids}-to-note`}>{RECIPIENT_NOTE[provider.channel]}</span>
        {recipientsError && <span className="field-error">{recipientsError}</span>}
      </div>
      <div className="field">
        <label htmlFor={`${ids}-subject`}>Subject</label>
        <input id={`${ids}-subject`} value={subject} onChange={(e) => setSubject(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${ids}-content`}>Message</label>
        <textarea id={`${ids}-content`} className="code" rows={4} value={content} onChange={(e) => setContent(e.target.value)}
          aria-invalid={fieldErrors.content ? true : undefined} />
        {fieldErrors.content && <span className="field-error">{fieldErrors.content}</span>}
      </div>
      <div aria-live="polite">
        {result && (
          <div className={result.success ? 'notice notice-success' : 'notice notice-error'} role="status">
            <strong>{result.success ? 'Sent.' : 'Not sent.'}</strong>
            <span className="break">{result.success ? `The provider accepted the message${result.message.replace(/^Sent\.?\s*/, ' ').replace(/\.$/, '').trimEnd()}.` : `The provider answered: ${result.message}`}</span>
          </div>
        )}
      </div>
      {error !== null && !recipientsError && !fieldErrors.content && <ErrorNotice error={error} />}
    </Dialog>
  );
}
