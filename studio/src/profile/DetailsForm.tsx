/** Name, email, avatar, language and appearance, saved together with PATCH /users/me; the session's `me` is read
 * again afterwards, so the appearance (html[data-theme], app/appearance.ts) and the name change everywhere at once.
 * A failed save keeps everything typed and puts the server's message on its field. */
import { useId, useState, type FormEvent } from 'react';
import { request } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { assetUrl } from '../app/project.tsx';
import { useSession, type Me } from '../app/session.tsx';
import { FilePickerDialog } from '../files/FilePickerDialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';

type Appearance = 'light' | 'dark' | 'auto';

interface Draft {
  first_name: string;
  last_name: string;
  email: string;
  avatar: string | null;
  language: string;
  appearance: Appearance;
}

const LOCALES = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'nl-NL', 'pt-BR', 'sv-SE', 'ja-JP'];

function localeName(code: string): string {
  try {
    const name = new Intl.DisplayNames([code], { type: 'language' }).of(code);
    const english = new Intl.DisplayNames(['en'], { type: 'language' }).of(code);
    return name && english && name !== english ? `${name} (${english})` : (english ?? code);
  } catch {
    return code;
  }
}

function draftOf(me: Me): Draft {
  return {
    first_name: me.first_name ?? '',
    last_name: me.last_name ?? '',
    email: me.email ?? '',
    avatar: me.avatar,
    language: me.language ?? '',
    appearance: me.appearance === 'light' || me.appearance === 'dark' ? me.appearance : 'auto',
  };
}

function changesOf(me: Me, d: Draft): Record<string, unknown> {
  const base = draftOf(me);
  const out: Record<string, unknown> = {};
  if (d.first_name !== base.first_name) out.first_name = d.first_name.trim() || null;
  if (d.last_name !== base.last_name) out.last_name = d.last_name.trim() || null;
  if (d.email !== base.email) out.email = d.email.trim();
  if (d.avatar !== base.avatar) out.avatar = d.avatar;
  if (d.language !== base.language) out.language = d.language || null;
  if (d.appearance !== base.appearance) out.appearance = d.appearance;
  return out;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function DetailsForm({ me }: { me: Me }) {
  const { reloadMe } = useSession();
  const uid = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(me));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [picking, setPicking] = useState(false);
  const changes = changesOf(me, draft);
  const dirty = Object.keys(changes).length > 0;

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setSaved(false);
    setErrors((e) => (e[key] ? { ...e, [key]: '' } : e));
  };

  async function save(e?: FormEvent) {
    e?.preventDefault();
    if (!EMAIL.test(draft.email.trim())) {
      setErrors({ email: 'Enter an email address like name@example.com.' });
      return;
    }
    setSaving(true);
    setErrors({});
    setFormError(null);
    try {
      await request('PATCH', '/users/me', { body: changes });
      const fresh = await reloadMe();
      if (fresh) setDraft(draftOf(fresh));
      setSaved(true);
    } catch (err) {
      const fields = err instanceof ApiError ? err.fieldErrors() : {};
      if (err instanceof ApiError && err.code === 'RECORD_NOT_UNIQUE') fields.email = 'Another account uses this email address.';
      setErrors(fields);
      if (!Object.keys(fields).length) setFormError(err);
    } finally {
      setSaving(false);
    }
  }

  const props = (name: keyof Draft) => ({
    id: `${uid}-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `${uid}-${name}-error` : undefined,
  });
  const error = (name: keyof Draft) => (errors[name] ? <p className="field-error" id={`${uid}-${name}-error`}>{errors[name]}</p> : null);
  const initials = ((draft.first_name[0] ?? '') + (draft.last_name[0] ?? '')).toUpperCase() || (draft.email[0] ?? '?').toUpperCase();

  return (
    <>
    <form className="profile-card" onSubmit={(e) => void save(e)} noValidate aria-labelledby={`${uid}-title`}>
      <h2 id={`${uid}-title`}>Personal details</h2>
      <div className="avatar-row">
        {draft.avatar
          ? <img className="avatar" src={assetUrl(draft.avatar, { width: 128, height: 128, fit: 'cover' })} alt="Your avatar" width={64} height={64} />
          : <span className="avatar avatar-initials" aria-hidden="true">{initials}</span>}
        <div className="avatar-actions">
          <span className="field-label">Avatar</span>
          <div className="actions-row">
            <button type="button" className="btn btn-small" onClick={() => setPicking(true)}>{draft.avatar ? 'Change avatar…' : 'Choose an avatar…'}</button>
            {draft.avatar && <button type="button" className="btn btn-small btn-ghost" onClick={() => set('avatar', null)}>Remove avatar</button>}
          </div>
          {error('avatar')}
        </div>
      </div>
      <div className="form-grid">
        <div className="field">
          <label htmlFor={`${uid}-first_name`}>First name</label>
          <input {...props('first_name')} autoComplete="given-name" value={draft.first_name} maxLength={50} onChange={(e) => set('first_name', e.target.value)} />
          {error('first_name')}
        </div>
        <div className="field">
          <label htmlFor={`${uid}-last_name`}>Last name</label>
          <input {...props('last_name')} autoComplete="family-name" value={draft.last_name} maxLength={50} onChange={(e) => set('last_name', e.target.value)} />
          {error('last_name')}
        </div>
        <div className="field full">
          <label htmlFor={`${uid}-email`}>Email</label>
          <input {...props('email')} type="email" autoComplete="email" value={draft.email} maxLength={128} onChange={(e) => set('email', e.target.value)} />
          {error('email')}
        </div>
        <div className="field">
          <label htmlFor={`${uid}-language`}>Language</label>
          <select {...props('language')} value={draft.language} onChange={(e) => set('language', e.target.value)}>
            <option value="">Project default</option>
            {LOCALES.map((code) => <option key={code} value={code} lang={code}>{localeName(code)}</option>)}
            {draft.language && !LOCALES.includes(draft.language) && <option value={draft.language}>{draft.language}</option>}
          </select>
          {error('language')}
        </div>
        <fieldset className="field appearance-field">
          <legend>Appearance</legend>
          <div className="segmented-radios">
            {([['light', 'Light'], ['dark', 'Dark'], ['auto', 'System']] as const).map(([value, label]) => (
              <label key={value} className="radio-pill">
                <input type="radio" name={`${uid}-appearance`} value={value} checked={draft.appearance === value} onChange={() => set('appearance', value)} />
                <span>{label}</span>
              </label>
            ))}
          </div>
          {error('appearance')}
        </fieldset>
      </div>
      {formError !== null && <ErrorNotice error={formError} onRetry={() => void save()} />}
      <div className="actions-row">
        <button type="submit" className="btn btn-primary" disabled={!dirty || saving}>{saving ? 'Saving…' : 'Save changes'}</button>
        <button type="button" className="btn btn-ghost" disabled={!dirty || saving} onClick={() => { setDraft(draftOf(me)); setErrors({}); setFormError(null); }}>Discard changes</button>
        {saved && !dirty && <span className="notice-inline" role="status">Saved.</span>}
      </div>
    </form>
    {/* Outside the form: Enter in the dialog's search box must not save the profile. */}
    <FilePickerDialog open={picking} accept="image" onClose={() => setPicking(false)} onPick={(file) => { set('avatar', file.id); setPicking(false); }} />
    </>
  );
}
