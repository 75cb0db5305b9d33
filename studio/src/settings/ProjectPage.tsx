/** /settings/project: the project's settings in groups, each saved on its own: identity (name, URL, color, logo),
 * the public sign-in page (images, note) with a small preview, custom CSS, security (password policy, login
 * attempts), registration, uploads. */
import { useQuery } from '@tanstack/react-query';
import { requestList } from '../api/client.ts';
import { useUnsavedGuard } from '../content/item/unsaved.tsx';
import { CheckField, SelectField, TextField, type FieldErrors } from '../ui/form.tsx';
import { settingsQuery, useSettingsForm, whiteContrast, type Settings } from './data.ts';
import { FileChoice } from './FileChoice.tsx';
import { PasswordPolicyField, policyProblem } from './PasswordPolicyField.tsx';
import { cardState, SettingsCard } from './SettingsCard.tsx';
import { SettingsPage } from './SettingsPage.tsx';
import { assetUrl } from '../app/project.tsx';

export default function ProjectPage() {
  const settings = useQuery(settingsQuery);
  return <SettingsPage title="Project settings" record={settings} loading="Loading the settings">{(stored) => <Groups stored={stored} />}</SettingsPage>;
}

function Groups({ stored }: { stored: Settings }) {
  const identity = useSettingsForm(stored, ['project_name', 'project_descriptor', 'project_url', 'project_color', 'project_logo'] as const);
  const publicPage = useSettingsForm(stored, ['public_foreground', 'public_background', 'public_note'] as const);
  const css = useSettingsForm(stored, ['custom_css'] as const);
  const security = useSettingsForm(stored, ['auth_password_policy', 'auth_login_attempts'] as const);
  const registration = useSettingsForm(stored, ['public_registration', 'public_registration_verify_email', 'public_registration_role', 'public_registration_email_filter'] as const);
  const uploads = useSettingsForm(stored, ['storage_default_folder'] as const);
  const forms = [identity, publicPage, css, security, registration, uploads];
  const guard = useUnsavedGuard(forms.some((f) => f.dirty), 'Some settings have changes that are not saved. They will be lost if you leave.');

  const color = identity.value('project_color');
  const contrast = whiteContrast(color);
  const roles = useQuery({
    queryKey: ['settings', 'roles'],
    queryFn: ({ signal }) => requestList<{ id: string; name: string }>('/roles', { fields: ['id', 'name'], sort: ['name'], limit: 500 }, signal),
  });
  const folders = useQuery({
    queryKey: ['settings', 'folders'],
    queryFn: ({ signal }) => requestList<{ id: string; name: string; parent: string | null }>('/folders', { fields: ['id', 'name', 'parent'], sort: ['name'], limit: 1000 }, signal),
  });
  const domains = registration.value('public_registration_email_filter');
  const domainText = Array.isArray(domains) ? domains.join(', ') : '';
  const attempts = security.value('auth_login_attempts');

  return (
    <div className="settings-cards">
      <SettingsCard title="Identity" description="How the project is named and colored in the Studio and on its sign-in page." {...cardState(identity)}
        onSave={() => void identity.save((): FieldErrors => (whiteContrast(color) === null ? { project_color: 'Use a hex color such as #6644FF.' } : {}))}>
        <TextField label="Project name" value={identity.value('project_name') ?? ''} onChange={(v) => identity.set('project_name', v)} error={identity.errors.project_name} maxLength={100} required />
        <TextField label="Descriptor" value={identity.value('project_descriptor') ?? ''} onChange={(v) => identity.set('project_descriptor', v || null)} error={identity.errors.project_descriptor}
          maxLength={100} note="A short line under the name on the sign-in page." />
        <TextField label="Project URL" type="url" value={identity.value('project_url') ?? ''} onChange={(v) => identity.set('project_url', v || null)} error={identity.errors.project_url}
          placeholder="https://www.example.com" note="The website this project feeds." />
        <div className="color-row">
          <TextField label="Project color" value={color} onChange={(v) => identity.set('project_color', v)} error={identity.errors.project_color}
            note={contrast === null ? 'A hex color such as #6644FF.' : contrast < 4.5
              ? `White text on it has a contrast of ${contrast.toFixed(1)}:1, under the 4.5:1 that keeps it readable. Choose a darker color.`
              : `White text on it: contrast ${contrast.toFixed(1)}:1, readable.`} />
          <input type="color" aria-label="Pick the project color" value={contrast === null ? '#6644ff' : expandHex(color)} onChange={(e) => identity.set('project_color', e.target.value.toUpperCase())} />
          <span className="color-sample" aria-hidden="true" data-color={color} ref={(el) => { if (el && contrast !== null) el.style.background = color; }}>Aa</span>
        </div>
        <FileChoice label="Logo" value={identity.value('project_logo')} onChange={(v) => identity.set('project_logo', v)} error={identity.errors.project_logo}
          note="Shown at the top of the module bar and on the sign-in page; a square image works best." />
      </SettingsCard>

      <SettingsCard title="Sign-in page" description="What people see before they sign in." {...cardState(publicPage)} onSave={() => void publicPage.save()}>
        <div className="public-preview" aria-label="Preview of the sign-in page" role="img"
          ref={(el) => {
            if (!el) return;
            const bg = publicPage.value('public_background');
            el.style.backgroundImage = bg ? `url("${assetUrl(bg, { width: 480 })}")` : '';
            el.style.backgroundColor = whiteContrast(color) === null ? '' : color;
          }}>
          <div className="public-preview-panel">
            <span className="public-preview-mark">{(identity.value('project_name') || 'S').slice(0, 1).toUpperCase()}</span>
            <span>{identity.value('project_name')}</span>
          </div>
          {publicPage.value('public_foreground') && <img className="public-preview-foreground" src={assetUrl(publicPage.value('public_foreground')!, { width: 240 })} alt="" />}
          {publicPage.value('public_note') && <p className="public-preview-note">{publicPage.value('public_note')}</p>}
        </div>
        <FileChoice label="Foreground" value={publicPage.value('public_foreground')} onChange={(v) => publicPage.set('public_foreground', v)} note="Shown over the background, beside the sign-in form." />
        <FileChoice label="Background" value={publicPage.value('public_background')} onChange={(v) => publicPage.set('public_background', v)} note="Fills the side of the sign-in page." />
        <div className="field form-field">
          <label htmlFor="public-note">Note</label>
          <textarea id="public-note" value={publicPage.value('public_note') ?? ''} onChange={(e) => publicPage.set('public_note', e.target.value || null)} rows={3}
            aria-describedby="public-note-help" />
          <p className="field-note" id="public-note-help">A few words over the background: who may sign in, whom to ask for an account.</p>
        </div>
      </SettingsCard>

      <SettingsCard title="Security" description="Rules for passwords and failed sign-ins." {...cardState(security)}
        onSave={() => void security.save((): FieldErrors => {
          const problem = policyProblem(security.value('auth_password_policy'));
          return problem ? { auth_password_policy: problem } : {};
        })}>
        <PasswordPolicyField value={security.value('auth_password_policy')} onChange={(v) => security.set('auth_password_policy', v)} error={security.errors.auth_password_policy} />
        <TextField label="Failed sign-ins before lockout" type="number" min={1} value={attempts === null ? '' : String(attempts)}
          onChange={(v) => security.set('auth_login_attempts', v === '' ? null : Number(v))} error={security.errors.auth_login_attempts}
          note="An account is locked after this many wrong passwords in a row. Empty: no limit." />
      </SettingsCard>

      <SettingsCard title="Registration" description="Whether people may create their own account from the sign-in page." {...cardState(registration)}
        onSave={() => void registration.save()}>
        <CheckField label="Let people register" checked={registration.value('public_registration')} onChange={(v) => registration.set('public_registration', v)}
          note="Off: only administrators create and invite users." />
        <CheckField label="Verify their email first" checked={registration.value('public_registration_verify_email')}
          onChange={(v) => registration.set('public_registration_verify_email', v)} disabled={!registration.value('public_registration')}
          note="A link is mailed; the account works once it is followed." />
        <SelectField label="Role of new users" value={registration.value('public_registration_role') ?? ''} onChange={(v) => registration.set('public_registration_role', v || null)}
          error={registration.errors.public_registration_role} note="Without a role a registered user can sign in but see nothing.">
          <option value="">No role</option>
          {(roles.data?.data ?? []).map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
        </SelectField>
        <TextField label="Allowed email domains" value={domainText} placeholder="example.com, example.org"
          onChange={(v) => registration.set('public_registration_email_filter', v.trim() === '' ? null : v.split(/[\s,]+/).filter(Boolean))}
          error={registration.errors.public_registration_email_filter}
          note={domains !== null && !Array.isArray(domains)
            ? 'A filter set through the API decides now; typing domains here replaces it.'
            : 'Separated by commas. Empty: any address may register.'} />
      </SettingsCard>

      <SettingsCard title="Uploads" description="Where new files go." {...cardState(uploads)} onSave={() => void uploads.save()}>
        <SelectField label="Default folder" value={uploads.value('storage_default_folder') ?? ''} onChange={(v) => uploads.set('storage_default_folder', v || null)}
          note="Files uploaded without a folder land here.">
          <option value="">The library's root</option>
          {folderOptions(folders.data?.data ?? []).map((f) => <option key={f.id} value={f.id}>{f.label}</option>)}
        </SelectField>
      </SettingsCard>

      <SettingsCard title="Custom CSS" description="Style rules applied to the Studio and its sign-in page, for your brand." wide {...cardState(css)} onSave={() => void css.save()}>
        <div className="field form-field">
          <label htmlFor="custom-css">CSS</label>
          <textarea id="custom-css" className="code" rows={8} spellCheck={false} value={css.value('custom_css') ?? ''} onChange={(e) => css.set('custom_css', e.target.value || null)}
            aria-describedby="custom-css-help" placeholder=":root { --accent: #0b6e4f; }" />
          <p className="field-note" id="custom-css-help">Applied as a stylesheet (never as a script), as soon as it is saved. A rule the browser cannot read is skipped.</p>
        </div>
      </SettingsCard>
      {guard.dialog}
    </div>
  );
}

/** "#abc" -> "#aabbcc", as <input type="color"> wants. */
function expandHex(hex: string): string {
  const h = hex.trim().toLowerCase();
  return h.length === 4 ? `#${h[1]}${h[1]}${h[2]}${h[2]}${h[3]}${h[3]}` : h;
}

/** Folders as "Parent / Child", in path order. */
function folderOptions(folders: { id: string; name: string; parent: string | null }[]): { id: string; label: string }[] {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const path = (f: { name: string; parent: string | null }, depth = 0): string => {
    const parent = f.parent ? byId.get(f.parent) : undefined;
    return parent && depth < 20 ? `${path(parent, depth + 1)} / ${f.name}` : f.name;
  };
  return folders.map((f) => ({ id: f.id, label: path(f) })).sort((a, b) => a.label.localeCompare(b.label));
}
