/** A policy's details: name, icon, description, administrator and Studio access, and the IP ranges it is limited to
 * (an editable list, each line checked as an address or CIDR range before anything is sent; the server's answer
 * shows under the list), saved together with PATCH /policies/{id}. Beside them, where the policy is attached (roles
 * and users, from /access). */
import { useId, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { request, requestList } from '../../api/client.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { recordName, userName, type PolicyRecord } from '../data.ts';
import { CheckField, splitError, TextField, type FieldErrors } from '../../ui/form.tsx';
import { cidrProblem } from './cidr.ts';

interface Draft {
  name: string;
  icon: string;
  description: string;
  admin_access: boolean;
  app_access: boolean;
  ranges: { key: number; text: string }[];
}

let rangeKey = 0;
const line = (text: string) => ({ key: ++rangeKey, text });

function draftOf(p: PolicyRecord): Draft {
  return {
    name: p.name ?? '', icon: p.icon ?? '', description: p.description ?? '', admin_access: p.admin_access, app_access: p.app_access,
    ranges: (p.ip_access ?? []).map(line),
  };
}

function rangesOf(d: Draft): string[] {
  return d.ranges.map((r) => r.text.trim());
}

function changesOf(p: PolicyRecord, d: Draft): Record<string, unknown> {
  const base = draftOf(p);
  const out: Record<string, unknown> = {};
  if (d.name !== base.name) out.name = d.name.trim();
  if (d.icon !== base.icon) out.icon = d.icon.trim() || null;
  if (d.description !== base.description) out.description = d.description.trim() || null;
  if (d.admin_access !== base.admin_access) out.admin_access = d.admin_access;
  if (d.app_access !== base.app_access) out.app_access = d.app_access;
  const ranges = rangesOf(d);
  if (ranges.join('\n') !== rangesOf(base).join('\n')) out.ip_access = ranges.length > 0 ? ranges : null;
  return out;
}

export function PolicyDetails({ policy, onSaved }: { policy: PolicyRecord; onSaved(): Promise<void> }) {
  const id = useId();
  const [draft, setDraft] = useState<Draft>(() => draftOf(policy));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [rangeErrors, setRangeErrors] = useState<Record<number, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const changes = changesOf(policy, draft);
  const dirty = Object.keys(changes).length > 0;
  const update = (patch: Partial<Draft>): void => {
    setDraft((d) => ({ ...d, ...patch }));
    setSaved(false);
  };
  const setRange = (key: number, text: string): void => {
    update({ ranges: draft.ranges.map((r) => (r.key === key ? { ...r, text } : r)) });
    setRangeErrors((e) => (e[key] ? { ...e, [key]: '' } : e));
    setErrors((e) => (e.ip_access ? { ...e, ip_access: '' } : e));
  };

  async function save(e?: FormEvent): Promise<void> {
    e?.preventDefault();
    if (!dirty || saving) return;
    const problems: Record<number, string> = {};
    for (const r of draft.ranges) {
      const problem = cidrProblem(r.text);
      if (problem) problems[r.key] = problem;
    }
    setRangeErrors(problems);
    const next: FieldErrors = {};
    if (!draft.name.trim()) next.name = 'A policy needs a name.';
    setErrors(next);
    if (Object.keys(problems).length > 0 || Object.keys(next).length > 0) return;
    setSaving(true);
    setError(null);
    try {
      await request('PATCH', `/policies/${encodeURIComponent(policy.id)}`, { body: changes });
      await onSaved();
      setSaved(true);
    } catch (err) {
      const { fields, rest } = splitError(err, ['name', 'icon', 'description', 'admin_access', 'app_access', 'ip_access']);
      setErrors(fields);
      setError(rest);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form className="page-body" onSubmit={(e) => void save(e)} noValidate aria-label="Policy details">
      <div className="access-cards">
        <section className="access-card" aria-labelledby={`${id}-details`}>
          <h2 id={`${id}-details`}>Details</h2>
          <div className="form-grid">
            <TextField label="Name" value={draft.name} onChange={(v) => { update({ name: v }); setErrors({}); }} error={errors.name} maxLength={100} autoComplete="off" />
            <TextField label="Icon" value={draft.icon} onChange={(v) => update({ icon: v })} error={errors.icon} maxLength={64} autoComplete="off" note="A Material icon name (e.g. badge)." />
            <div className="field full">
              <label htmlFor={`${id}-description`}>Description</label>
              <textarea id={`${id}-description`} rows={2} value={draft.description} onChange={(e) => update({ description: e.target.value })} />
            </div>
          </div>
          <div className="check-list">
            <CheckField label="Administrator" checked={draft.admin_access} onChange={(v) => update({ admin_access: v })}
              note="Everything, everywhere: its permissions below are not even looked at." />
            <CheckField label="Studio access" checked={draft.app_access} onChange={(v) => update({ app_access: v })}
              note="May sign in to the Studio, with the minimal reads the Studio needs (their own user, roles, presets …)." />
          </div>
        </section>
        <section className="access-card" aria-labelledby={`${id}-ip`}>
          <h2 id={`${id}-ip`}>IP access</h2>
          <p className="field-note">Limit this policy to requests from these addresses or ranges. Elsewhere it grants nothing. No line: any address.</p>
          {draft.ranges.length > 0 && (
            <ol className="range-list" aria-label="IP ranges">
              {draft.ranges.map((r, i) => (
                <li key={r.key}>
                  <div className="range-line">
                    <input aria-label={`IP range ${i + 1}`} className="mono" value={r.text} placeholder="10.0.0.0/8" spellCheck={false} autoComplete="off"
                      onChange={(e) => setRange(r.key, e.target.value)}
                      aria-invalid={rangeErrors[r.key] ? true : undefined} aria-describedby={rangeErrors[r.key] ? `${id}-range-${r.key}` : undefined} />
                    <button type="button" className="btn btn-ghost icon-btn" aria-label={`Remove IP range ${i + 1}`} title="Remove"
                      onClick={() => update({ ranges: draft.ranges.filter((x) => x.key !== r.key) })}>✕</button>
                  </div>
                  {rangeErrors[r.key] && <p className="field-error" id={`${id}-range-${r.key}`}>{rangeErrors[r.key]}</p>}
                </li>
              ))}
            </ol>
          )}
          <div className="actions-row">
            <button type="button" className="btn btn-small" onClick={() => update({ ranges: [...draft.ranges, line('')] })}>+ Add IP range</button>
          </div>
          {errors.ip_access && <p className="field-error" role="alert">The server refused the ranges: {errors.ip_access}</p>}
        </section>
        <AttachedTo policy={policy.id} />
      </div>
      <div className="sticky-actions">
        {error !== null && <ErrorNotice error={error} onRetry={() => void save()} />}
        <div className="actions-row">
          <button type="submit" className="btn btn-primary" disabled={!dirty || saving}>{saving ? 'Saving…' : 'Save changes'}</button>
          <button type="button" className="btn btn-ghost" disabled={!dirty || saving}
            onClick={() => { setDraft(draftOf(policy)); setErrors({}); setRangeErrors({}); setError(null); }}>Discard changes</button>
          {saved && !dirty && <span className="notice-inline" role="status">Saved.</span>}
        </div>
      </div>
    </form>
  );
}

interface AccessRow {
  id: string;
  role: { id: string; name: string | null } | null;
  user: { id: string; email: string | null; first_name: string | null; last_name: string | null } | null;
}

const ATTACHED_LIMIT = 50;

function AttachedTo({ policy }: { policy: string }) {
  const id = useId();
  const query = {
    fields: ['id', 'role.id', 'role.name', 'user.id', 'user.email', 'user.first_name', 'user.last_name'],
    filter: { policy: { _eq: policy } }, limit: ATTACHED_LIMIT, sort: ['sort', 'id'], meta: 'filter_count',
  };
  const rows = useQuery({
    queryKey: ['access', 'attached', policy],
    queryFn: ({ signal }) => requestList<AccessRow>('/access', query, signal),
  });
  const list = rows.data?.data ?? [];
  const more = (rows.data?.meta.filter_count ?? 0) - list.length;
  return (
    <section className="access-card" aria-labelledby={`${id}-attached`}>
      <h2 id={`${id}-attached`}>Attached to</h2>
      {rows.error ? <ErrorNotice error={rows.error} onRetry={() => void rows.refetch()} />
        : !rows.data ? <Loading label="Loading" />
          : list.length === 0 ? <p className="muted">Nothing yet. Add it to a role from the role's page.</p>
            : (
              <ul className="attached-list" aria-label="Attached to">
                {list.map((a) => (
                  <li key={a.id}>
                    {a.role && <><span className="badge badge-quiet">Role</span><Link href={`/roles/${a.role.id}`} className="attached-name">{recordName(a.role.name)}</Link></>}
                    {a.user && <><span className="badge badge-quiet">User</span><Link href={`/users/${a.user.id}`} className="attached-name">{userName(a.user)}</Link></>}
                  </li>
                ))}
                {more > 0 && <li className="muted">and {more} more</li>}
              </ul>
            )}
    </section>
  );
}
