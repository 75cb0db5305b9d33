/** Messaging > Settings (GET/PATCH /notify/settings): the fallbacks used when a channel has no enabled provider (the
 * mail transport and its credentials, the chat URL), the sender address, the admin addresses templates may copy,
 * and the defaults of a send (locale, channels). Secrets show masked and are kept unless retyped. */
import { useEffect, useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { CHANNELS, MASK, jsonValue, type Channel } from '../api.ts';
import { SecretInput } from '../providers/ProviderDialog.tsx';

interface Settings {
  email_transport: 'smtp' | 'cloud_mail' | 'sendmail';
  smtp_host: string | null; smtp_port: number | null; smtp_user: string | null; smtp_pass: string | null; smtp_secure: boolean;
  cloud_mail_region: string | null; cloud_mail_access_key: string | null; cloud_mail_secret_key: string | null;
  email_from: string | null; admin_emails: string[] | null; chat_url: string | null; chat_token: string | null;
  default_locale: string; default_channels: Channel[] | null;
}

const settingsQuery = ['messaging', 'settings'] as const;

export default function SettingsPage() {
  const settings = useQuery({ queryKey: settingsQuery, queryFn: ({ signal }) => request<Settings>('GET', '/notify/settings', { signal }) });
  if (settings.error) {
    return (
      <div className="main-pane">
        <header className="page-header"><h1>Settings</h1></header>
        <div className="page-body"><ErrorNotice error={settings.error} onRetry={() => void settings.refetch()} /></div>
      </div>
    );
  }
  if (!settings.data) return <div className="main-pane"><Loading label="Loading the settings" /></div>;
  return <SettingsForm initial={settings.data} />;
}

type Text = Record<string, string>;

function textOf(s: Settings): Text {
  const t = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  return {
    email_transport: s.email_transport, smtp_host: t(s.smtp_host), smtp_port: t(s.smtp_port), smtp_user: t(s.smtp_user), smtp_pass: t(s.smtp_pass),
    cloud_mail_region: t(s.cloud_mail_region), cloud_mail_access_key: t(s.cloud_mail_access_key), cloud_mail_secret_key: t(s.cloud_mail_secret_key),
    email_from: t(s.email_from), admin_emails: (jsonValue<string[]>(s.admin_emails) ?? []).join(', '), chat_url: t(s.chat_url), chat_token: t(s.chat_token),
    default_locale: t(s.default_locale),
  };
}

function SettingsForm({ initial }: { initial: Settings }) {
  const ids = useId();
  const qc = useQueryClient();
  const [text, setText] = useState<Text>(() => textOf(initial));
  const [secure, setSecure] = useState(initial.smtp_secure);
  const [channels, setChannels] = useState<Channel[]>(jsonValue<Channel[]>(initial.default_channels) ?? []);
  const [saved, setSaved] = useState(false);
  useEffect(() => { if (saved) { const t = setTimeout(() => setSaved(false), 3000); return () => clearTimeout(t); } }, [saved]);
  const set = (k: string) => (v: string) => { setText((prev) => ({ ...prev, [k]: v })); setSaved(false); };

  const save = useMutation({
    mutationFn: () => {
      const v = (k: string): string | null => (text[k].trim() === '' ? null : text[k].trim());
      const secret = (k: string): string | null => (text[k] === MASK ? MASK : v(k));
      return request<Settings>('PATCH', '/notify/settings', {
        body: {
          email_transport: text.email_transport, smtp_host: v('smtp_host'), smtp_port: v('smtp_port') === null ? null : Number(text.smtp_port),
          smtp_user: v('smtp_user'), smtp_pass: secret('smtp_pass'), smtp_secure: secure,
          cloud_mail_region: v('cloud_mail_region'), cloud_mail_access_key: secret('cloud_mail_access_key'), cloud_mail_secret_key: secret('cloud_mail_secret_key'),
          email_from: v('email_from'), admin_emails: text.admin_emails.split(/[,;\s]+/).filter(Boolean), chat_url: v('chat_url'), chat_token: secret('chat_token'),
          default_locale: text.default_locale.trim(), default_channels: channels,
        },
      });
    },
    onSuccess: (next) => {
      if (next) {
        qc.setQueryData(settingsQuery, next);
        setText(textOf(next));
      }
      setSaved(true);
    },
  });
  const fe = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const errorOf = (k: string): string | undefined => fe[k] ?? Object.entries(fe).find(([f]) => f.startsWith(`${k}[`))?.[1];
  const placed = Object.keys(fe).some((f) => f.split('[')[0] in text || f === 'default_channels' || f === 'smtp_secure');

  const input = (k: string, label: string, opts: { type?: string; note?: string; placeholder?: string } = {}) => (
    <div className="field">
      <label htmlFor={`${ids}-${k}`}>{label}</label>
      <input id={`${ids}-${k}`} type={opts.type ?? 'text'} value={text[k]} onChange={(e) => set(k)(e.target.value)} placeholder={opts.placeholder}
        aria-invalid={errorOf(k) ? true : undefined} aria-describedby={opts.note ? `${ids}-${k}-note` : undefined} autoComplete="off" spellCheck={false} />
      {opts.note && <span className="field-note" id={`${ids}-${k}-note`}>{opts.note}</span>}
      {errorOf(k) && <span className="field-error">{errorOf(k)}</span>}
    </div>
  );

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Settings</h1>
        <span role="status" className="save-state">{saved ? 'Saved' : ''}</span>
        <button type="submit" form={`${ids}-form`} className="btn btn-primary" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
      </header>
      <div className="page-body">
        <form id={`${ids}-form`} className="messaging-stack settings-form" noValidate onSubmit={(e) => { e.preventDefault(); save.mutate(); }} aria-label="Notification settings">
          <section className="messaging-card" aria-labelledby={`${ids}-email`}>
            <h2 id={`${ids}-email`}>Email without a provider</h2>
            <p className="muted card-note">Used when the email channel has no enabled provider (see Providers); without these either, the server's EMAIL_* configuration sends.</p>
            <div className="form-grid">
              <div className="field">
                <label htmlFor={`${ids}-transport`}>Transport</label>
                <select id={`${ids}-transport`} value={text.email_transport} onChange={(e) => set('email_transport')(e.target.value)}>
                  <option value="smtp">SMTP server</option>
                  <option value="cloud_mail">Cloud mail (SES)</option>
                  <option value="sendmail">Sendmail (local)</option>
                </select>
              </div>
              {input('email_from', 'From', { placeholder: 'News <news@example.com>', note: 'The sender when a provider names none.' })}
              {text.email_transport === 'smtp' && (
                <>
                  {input('smtp_host', 'SMTP host', { placeholder: 'smtp.example.com' })}
                  {input('smtp_port', 'SMTP port', { type: 'number', placeholder: '587' })}
                  {input('smtp_user', 'SMTP user name')}
                  <SecretInput id={`${ids}-smtp_pass`} label="SMTP password" value={text.smtp_pass} onChange={set('smtp_pass')} error={errorOf('smtp_pass')} />
                  <label className="check full"><input type="checkbox" checked={secure} onChange={(e) => { setSecure(e.target.checked); setSaved(false); }} /> Use TLS from the start (port 465)</label>
                </>
              )}
              {text.email_transport === 'cloud_mail' && (
                <>
                  {input('cloud_mail_region', 'Region', { placeholder: 'eu-west-1' })}
                  <SecretInput id={`${ids}-cloud_mail_access_key`} label="Access key" value={text.cloud_mail_access_key} onChange={set('cloud_mail_access_key')} error={errorOf('cloud_mail_access_key')} />
                  <SecretInput id={`${ids}-cloud_mail_secret_key`} label="Secret key" value={text.cloud_mail_secret_key} onChange={set('cloud_mail_secret_key')} error={errorOf('cloud_mail_secret_key')} />
                </>
              )}
            </div>
          </section>
          <section className="messaging-card" aria-labelledby={`${ids}-chat`}>
            <h2 id={`${ids}-chat`}>Chat without a provider</h2>
            <div className="form-grid">
              {input('chat_url', 'Chat webhook URL', { type: 'url', placeholder: 'https://chat.example.com/hooks/…' })}
              <SecretInput id={`${ids}-chat_token`} label="Chat token" value={text.chat_token} onChange={set('chat_token')} error={errorOf('chat_token')} />
            </div>
          </section>
          <section className="messaging-card" aria-labelledby={`${ids}-defaults`}>
            <h2 id={`${ids}-defaults`}>Defaults</h2>
            <div className="form-grid">
              {input('default_locale', 'Default locale', { placeholder: 'en', note: 'The locale of a send that names none.' })}
              {input('admin_emails', 'Admin addresses', { note: 'Copied on sends of templates that ask for it, separated by commas.' })}
              <fieldset className="checks full">
                <legend>Default channels</legend>
                {CHANNELS.map((c) => (
                  <label key={c.id} className="check">
                    <input type="checkbox" checked={channels.includes(c.id)} onChange={(e) => { setChannels((prev) => e.target.checked ? [...prev, c.id] : prev.filter((x) => x !== c.id)); setSaved(false); }} /> {c.label}
                  </label>
                ))}
                <span className="field-note">For templates that name no channel.</span>
                {fe.default_channels && <span className="field-error">{fe.default_channels}</span>}
              </fieldset>
            </div>
          </section>
          {save.error !== null && !placed && <ErrorNotice error={save.error} />}
        </form>
      </div>
    </div>
  );
}
