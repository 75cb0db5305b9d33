/** Add or edit a provider: its name, channel (fixed once created) and type, the settings that type needs, enabled,
 * primary, and for types with delivery reports the webhook switch and secret. Secrets show masked; left as they are
 * they keep the stored value. The API's errors land on their field; nothing typed is lost when a save fails. */
import { useId, useState, type ReactNode } from 'react';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { CHANNELS, MASK, channelLabel, type Channel, type Provider } from '../api.ts';
import { configOf, formValues, kindOf, kindsOf, type ConfigField, type ProviderKind } from './provider-types.ts';

interface Props {
  provider?: Provider;
  channel: Channel;
  onClose(): void;
  onSaved(id: number): void;
}

export function ProviderDialog({ provider, channel: initialChannel, onClose, onSaved }: Props) {
  const editing = provider !== undefined;
  const [name, setName] = useState(provider?.name ?? '');
  const [channel, setChannel] = useState<Channel>(provider?.channel ?? initialChannel);
  const [type, setType] = useState<string | null>(provider ? provider.type : kindsOf(initialChannel)[0].type);
  const kind: ProviderKind = kindOf(channel, type) ?? kindsOf(channel)[0];
  const [values, setValues] = useState<Record<string, string>>(() => formValues(kind, provider?.config ?? null));
  const [enabled, setEnabled] = useState(provider?.enabled ?? true);
  const [primary, setPrimary] = useState(provider?.is_primary ?? false);
  const [webhook, setWebhook] = useState(provider?.webhook_enabled ?? false);
  const [secret, setSecret] = useState(provider?.webhook_secret ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ids = useId();
  const fieldErrors = error instanceof ApiError ? error.fieldErrors() : {};

  function chooseKind(nextChannel: Channel, nextType: string | null): void {
    const next = kindOf(nextChannel, nextType) ?? kindsOf(nextChannel)[0];
    setChannel(next.channel);
    setType(next.type);
    // The same type keeps what was typed; another type starts from its stored settings, or empty.
    const same = provider && provider.channel === next.channel && provider.type === next.type;
    setValues(same ? formValues(next, provider.config) : formValues(next, null));
  }

  async function save(): Promise<void> {
    if (busy) return;
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = {
      name: name.trim(), type: kind.type, config: configOf(kind, values), enabled, is_primary: primary,
    };
    if (kind.webhooks) {
      body.webhook_enabled = webhook;
      if (secret !== MASK) body.webhook_secret = secret.trim() === '' ? null : secret.trim();
    } else if (provider?.webhook_enabled) {
      body.webhook_enabled = false;
    }
    try {
      const id = editing
        ? await request<number>('PATCH', `/notify/providers/${provider.id}`, { body })
        : await request<number>('POST', '/notify/providers', { body: { ...body, channel } });
      onSaved(Number(id));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const unplaced = error instanceof ApiError
    ? Object.keys(fieldErrors).filter((f) => f !== 'name' && f !== 'type' && f !== 'webhook_secret' && !f.startsWith('config.')).length > 0 || Object.keys(fieldErrors).length === 0
    : error !== null;
  const webhookUrl = `${location.origin}/notify/webhooks/${kind.type ?? channel}${kind.type === 'cloud_mail' ? '?token=<webhook secret>' : ''}`;

  return (
    <Dialog title={editing ? `Edit ${provider.name}` : `Add ${channelLabel(channel).toLowerCase()} provider`} onClose={onClose} onSubmit={() => void save()} wide
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : editing ? 'Save' : 'Add provider'}</button>
      </>}>
      <div className="form-grid">
        <TextInput id={`${ids}-name`} label="Name" value={name} onChange={setName} required error={fieldErrors.name} />
        {editing ? (
          <div className="field">
            <span className="field-label" id={`${ids}-channel`}>Channel</span>
            <span className="static-value" aria-labelledby={`${ids}-channel`}>{channelLabel(channel)} <span className="muted">(fixed once created)</span></span>
          </div>
        ) : (
          <div className="field">
            <label htmlFor={`${ids}-channel`}>Channel</label>
            <select id={`${ids}-channel`} value={channel} onChange={(e) => chooseKind(e.target.value as Channel, kindsOf(e.target.value as Channel)[0].type)}>
              {CHANNELS.map((c) => <option key={c.id} value={c.id}>{c.label}</option>)}
            </select>
          </div>
        )}
        {kindsOf(channel).length > 1 && (
          <div className="field full">
            <label htmlFor={`${ids}-type`}>Type</label>
            <select id={`${ids}-type`} value={type ?? ''} onChange={(e) => chooseKind(channel, e.target.value)} aria-invalid={fieldErrors.type ? true : undefined}
              aria-describedby={editing ? `${ids}-type-note` : undefined}>
              {kindsOf(channel).map((k) => <option key={k.type} value={k.type ?? ''}>{k.label}</option>)}
            </select>
            {editing && <span className="field-note" id={`${ids}-type-note`}>Another type starts its settings afresh.</span>}
            {fieldErrors.type && <span className="field-error">{fieldErrors.type}</span>}
          </div>
        )}
        {kind.fields.map((f) => (
          <ConfigInput key={`${kind.type}-${f.key}`} id={`${ids}-${f.key}`} field={f} value={values[f.key] ?? ''}
            onChange={(v) => setValues((prev) => ({ ...prev, [f.key]: v }))} error={fieldErrors[`config.${f.key}`]} />
        ))}
        {kind.fields.length === 0 && <p className="muted full">In-app providers have no settings: their notifications are stored for the users and shown in the Studio's bell.</p>}
        <fieldset className="full checks">
          <legend>Sending</legend>
          <label className="check"><input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled</label>
          <label className="check"><input type="checkbox" checked={primary} onChange={(e) => setPrimary(e.target.checked)} /> Primary {channelLabel(channel).toLowerCase()} provider</label>
        </fieldset>
        {kind.webhooks && (
          <fieldset className="full checks">
            <legend>Delivery reports</legend>
            <label className="check"><input type="checkbox" checked={webhook} onChange={(e) => setWebhook(e.target.checked)} /> Accept delivery reports from this provider</label>
            <SecretInput id={`${ids}-webhook-secret`} label="Webhook secret" value={secret} onChange={setSecret} error={fieldErrors.webhook_secret}
              note={<>Give the provider this address: <code className="break">{webhookUrl}</code></>} />
          </fieldset>
        )}
      </div>
      {unplaced && <ErrorNotice error={error} />}
    </Dialog>
  );
}

function TextInput({ id, label, value, onChange, required, error, type = 'text', placeholder, note }: {
  id: string; label: string; value: string; onChange(v: string): void; required?: boolean; error?: string; type?: string; placeholder?: string; note?: string;
}) {
  const described = [note ? `${id}-note` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}{required && <span aria-hidden="true" className="required">*</span>}</label>
      <input id={id} type={type} value={value} onChange={(e) => onChange(e.target.value)} required={required} placeholder={placeholder}
        aria-invalid={error ? true : undefined} aria-describedby={described} autoComplete="off" spellCheck={false} />
      {note && <span className="field-note" id={`${id}-note`}>{note}</span>}
      {error && <span className="field-error" id={`${id}-error`}>{error}</span>}
    </div>
  );
}

export function SecretInput({ id, label, value, onChange, error, required, note }: {
  id: string; label: string; value: string; onChange(v: string): void; error?: string; required?: boolean; note?: ReactNode;
}) {
  const stored = value === MASK;
  const described = [`${id}-note`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}{required && <span aria-hidden="true" className="required">*</span>}</label>
      <input id={id} type="password" value={value} onChange={(e) => onChange(e.target.value)} autoComplete="new-password" required={required}
        onFocus={(e) => { if (stored) e.target.select(); }} aria-invalid={error ? true : undefined} aria-describedby={described} />
      <span className="field-note" id={`${id}-note`}>
        {stored ? 'Stored and hidden. Leave it to keep it, or type a new one.' : 'Stored encrypted; shown masked afterwards.'}
        {note && <> {note}</>}
      </span>
      {error && <span className="field-error" id={`${id}-error`}>{error}</span>}
    </div>
  );
}

function ConfigInput({ id, field, value, onChange, error }: { id: string; field: ConfigField; value: string; onChange(v: string): void; error?: string }) {
  if (field.kind === 'boolean') {
    return (
      <div className="field full">
        <label className="check"><input id={id} type="checkbox" checked={value === 'true'} onChange={(e) => onChange(e.target.checked ? 'true' : '')} /> {field.label}</label>
        {error && <span className="field-error">{error}</span>}
      </div>
    );
  }
  if (field.kind === 'secret') return <SecretInput id={id} label={field.label} value={value} onChange={onChange} error={error} required={field.required} />;
  return (
    <TextInput id={id} label={field.label} value={value} onChange={onChange} required={field.required} error={error} placeholder={field.placeholder} note={field.note}
      type={field.kind === 'number' ? 'number' : field.kind === 'url' ? 'url' : 'text'} />
  );
}
