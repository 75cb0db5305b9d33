/** /access/roles/:id: a role's name, icon, description and parent; its access flags (administrator, Studio,
 * technical, impersonation), whether its users must use two-factor and whether it is a service account; and the
 * policies attached to it, all saved together with PATCH /roles/{id} (the `policies` list replaces the attached
 * ones). Deleting asks for the name; the server refuses the built-in roles and says so. */
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { invalidateAccess, recordName, usePolicyOptions, useRoleOptions, type RoleRecord } from '../data.ts';
import { CheckField, SelectField, splitError, TextField, type FieldErrors } from '../../ui/form.tsx';
import { AccessBadges } from '../shared.tsx';

const FIELDS = ['id', 'name', 'icon', 'description', 'parent', 'admin_access', 'app_access', 'tech_access', 'impersonate_access', 'enforce_tfa', 'service_account', 'protected', 'policies'];
const FLAGS = ['admin_access', 'app_access', 'tech_access', 'impersonate_access', 'enforce_tfa', 'service_account'] as const;
type Flag = typeof FLAGS[number];

interface Draft {
  name: string;
  icon: string;
  description: string;
  parent: string;
  flags: Record<Flag, boolean>;
  policies: string[];
}

function draftOf(r: RoleRecord): Draft {
  return {
    name: r.name ?? '', icon: r.icon ?? '', description: r.description ?? '', parent: r.parent ?? '',
    flags: Object.fromEntries(FLAGS.map((f) => [f, Boolean(r[f])])) as Record<Flag, boolean>,
    policies: [...(r.policies ?? [])],
  };
}

function changesOf(r: RoleRecord, d: Draft): Record<string, unknown> {
  const base = draftOf(r);
  const out: Record<string, unknown> = {};
  if (d.name !== base.name) out.name = d.name.trim();
  if (d.icon !== base.icon) out.icon = d.icon.trim() || null;
  if (d.description !== base.description) out.description = d.description.trim() || null;
  if (d.parent !== base.parent) out.parent = d.parent || null;
  for (const f of FLAGS) if (d.flags[f] !== base.flags[f]) out[f] = d.flags[f];
  if (d.policies.join() !== base.policies.join()) out.policies = d.policies;
  return out;
}

const FLAG_TEXT: Record<Flag, { label: string; note: string }> = {
  admin_access: { label: 'Administrator', note: 'Everything, everywhere: no permission is checked.' },
  app_access: { label: 'Studio access', note: 'May sign in to the Studio (policies can grant it too).' },
  tech_access: { label: 'Technical access', note: 'Implies administrator.' },
  impersonate_access: { label: 'May impersonate', note: 'May act as other (non-administrator) users; every such session is logged.' },
  enforce_tfa: { label: 'Require two-factor', note: 'Its users must set up two-factor authentication at their next sign-in.' },
  service_account: { label: 'Service account', note: 'For machines: requests count against the service rate limit.' },
};

export default function RolePage({ id }: { id: string }) {
  const role = useQuery({
    queryKey: ['access', 'role', id],
    queryFn: ({ signal }) => request<RoleRecord>('GET', `/roles/${encodeURIComponent(id)}`, { query: { fields: FIELDS }, signal }),
  });
  // Asked for beside the role, not after it.
  const roles = useRoleOptions();
  const policies = usePolicyOptions();

  if (role.error) {
    const gone = role.error instanceof ApiError && role.error.status === 403;
    return (
      <div className="main-pane">
        <header className="page-header"><h1>Role</h1></header>
        <div className="page-body">
          {gone ? <div className="notice" role="status"><span>This role does not exist (any more).</span><Link className="btn btn-small" href="/roles">All roles</Link></div>
            : <ErrorNotice error={role.error} onRetry={() => void role.refetch()} />}
        </div>
      </div>
    );
  }
  if (!role.data) return <div className="main-pane"><Loading label="Loading the role" /></div>;
  return <RoleForm key={role.data.id} role={role.data} roles={roles.data ?? []} policies={policies.data ?? []} reload={async () => { await role.refetch(); }}
    optionsError={roles.error ?? policies.error} />;
}

function RoleForm({ role, roles, policies, reload, optionsError }: {
  role: RoleRecord;
  roles: { id: string; name: string }[];
  policies: { id: string; name: string; admin_access: boolean; app_access: boolean; description: string | null }[];
  reload(): Promise<void>;
  optionsError: unknown;
}) {
  const client = useQueryClient();
  const [, navigate] = useLocation();
  const [draft, setDraft] = useState<Draft>(() => draftOf(role));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [adding, setAdding] = useState('');
  const [deleting, setDeleting] = useState(false);
  const changes = changesOf(role, draft);
  const dirty = Object.keys(changes).length > 0;
  const title = recordName(role.name);

  const update = (patch: Partial<Draft>): void => {
    setDraft((d) => ({ ...d, ...patch }));
    setSaved(false);
  };
  const setFlag = (flag: Flag) => (value: boolean) => update({ flags: { ...draft.flags, [flag]: value } });
  const policyOf = (pid: string) => policies.find((p) => p.id === pid);
  const available = policies.filter((p) => !draft.policies.includes(p.id));

  async function save(e?: FormEvent): Promise<void> {
    e?.preventDefault();
    if (!dirty || saving) return;
    if (!draft.name.trim()) {
      setErrors({ name: 'A role needs a name.' });
      return;
    }
    setSaving(true);
    setErrors({});
    setError(null);
    try {
      await request('PATCH', `/roles/${encodeURIComponent(role.id)}`, { body: changes });
      await Promise.all([reload(), invalidateAccess(client)]);
      setSaved(true);
    } catch (err) {
      const { fields, rest } = splitError(err, ['name', 'icon', 'description', 'parent', 'policies', ...FLAGS]);
      setErrors(fields);
      setError(rest);
    } finally {
      setSaving(false);
    }
  }

  return (
    <div className="main-pane">
      <header className="page-header record-header">
        <Link className="btn btn-ghost btn-small" href="/roles" aria-label="Back to roles">←</Link>
        <h1>{title}</h1>
        {role.protected && <span className="badge badge-quiet">Built in</span>}
        <span className="header-spacer" />
        <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)}>Delete role</button>
      </header>
      <form className="page-body" onSubmit={(e) => void save(e)} noValidate aria-label={`Role ${title}`}>
        <div className="access-cards">
          <section className="access-card" aria-labelledby="role-details-title">
            <h2 id="role-details-title">Details</h2>
            <div className="form-grid">
              <TextField label="Name" value={draft.name} onChange={(v) => { update({ name: v }); setErrors({}); }} error={errors.name} maxLength={100} autoComplete="off" />
              <TextField label="Icon" value={draft.icon} onChange={(v) => update({ icon: v })} error={errors.icon} maxLength={64} autoComplete="off"
                note="A Material icon name, as in Directus (e.g. supervised_user_circle)." />
              <div className="field full">
                <label htmlFor="role-description">Description</label>
                <textarea id="role-description" rows={2} value={draft.description} onChange={(e) => update({ description: e.target.value })} />
              </div>
              <SelectField className="full" label="Parent role" value={draft.parent} onChange={(v) => { update({ parent: v }); setErrors({}); }} error={errors.parent}
                note="Users of this role also get the parent's policies (and its parent's).">
                <option value="">No parent</option>
                {roles.filter((r) => r.id !== role.id).map((r) => <option key={r.id} value={r.id}>{recordName(r.name)}</option>)}
              </SelectField>
            </div>
          </section>
          <section className="access-card" aria-labelledby="role-access-title">
            <h2 id="role-access-title">Access</h2>
            <div className="check-list">
              {FLAGS.map((f) => <CheckField key={f} label={FLAG_TEXT[f].label} note={FLAG_TEXT[f].note} checked={draft.flags[f]} onChange={setFlag(f)} />)}
            </div>
          </section>
          <section className="access-card wide" aria-labelledby="role-policies-title">
            <h2 id="role-policies-title">Policies</h2>
            <p className="field-note">What the role's users may do is every permission of these policies together (and of the parent role's).</p>
            {draft.policies.length === 0 ? <p className="muted">No policies yet: the role grants nothing by itself.</p> : (
              <ul className="attached-list" aria-label="Attached policies">
                {draft.policies.map((pid) => {
                  const p = policyOf(pid);
                  const name = p ? recordName(p.name) : pid;
                  return (
                    <li key={pid}>
                      <Link href={`/policies/${pid}`} className="attached-name">{name}</Link>
                      {p && <AccessBadges admin={p.admin_access} app={p.app_access} />}
                      <span className="muted attached-note">{p?.description ?? ''}</span>
                      <button type="button" className="btn btn-small btn-ghost" onClick={() => update({ policies: draft.policies.filter((x) => x !== pid) })}>Remove {name}</button>
                    </li>
                  );
                })}
              </ul>
            )}
            <div className="inline-add">
              <SelectField label="Add a policy" value={adding} onChange={setAdding}>
                <option value="">Choose a policy…</option>
                {available.map((p) => <option key={p.id} value={p.id}>{recordName(p.name)}</option>)}
              </SelectField>
              <button type="button" className="btn" disabled={!adding} onClick={() => { update({ policies: [...draft.policies, adding] }); setAdding(''); }}>Add policy</button>
            </div>
            {errors.policies && <p className="field-error">{errors.policies}</p>}
            {optionsError !== null && <ErrorNotice error={optionsError} title="The policies could not be loaded." />}
          </section>
        </div>
        <div className="sticky-actions">
          {error !== null && <ErrorNotice error={error} onRetry={() => void save()} />}
          <div className="actions-row">
            <button type="submit" className="btn btn-primary" disabled={!dirty || saving}>{saving ? 'Saving…' : 'Save changes'}</button>
            <button type="button" className="btn btn-ghost" disabled={!dirty || saving} onClick={() => { setDraft(draftOf(role)); setErrors({}); setError(null); }}>Discard changes</button>
            {saved && !dirty && <span className="notice-inline" role="status">Saved.</span>}
          </div>
        </div>
      </form>
      {deleting && (
        <ConfirmDialog title={`Delete the role ${title}?`} confirmLabel="Delete role" typeToConfirm={role.name} onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await request('DELETE', `/roles/${encodeURIComponent(role.id)}`);
            await invalidateAccess(client);
            navigate('/roles');
          }}>
          <p>Its users keep their accounts with no role (so no access until they get one), its child roles lose their parent, and shares acting as it are removed. The policies stay.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
