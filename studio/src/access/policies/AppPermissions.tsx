/** A policy's app permissions (svc_app_permissions through /app-permissions): what its users may do in the versioning
 * and workflow modules. Each box grants (POST) or revokes (DELETE) at once; a failure puts the box back and says why
 * beside it. */
import { useId, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { request, requestList } from '../../api/client.ts';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import type { AppPermissionRow, PolicyRecord } from '../data.ts';

const MODULES: { module: string; title: string; actions: { action: string; label: string; note: string }[] }[] = [
  {
    module: 'versioning', title: 'Versioning',
    actions: [
      { action: 'view', label: 'View versions', note: 'See drafts and versions of items, and the publishing schedule.' },
      { action: 'create', label: 'Create versions', note: 'Start drafts of items and edit them.' },
      { action: 'manage', label: 'Manage versions', note: 'Promote, schedule and delete any version.' },
    ],
  },
  {
    module: 'workflow', title: 'Workflow',
    actions: [
      { action: 'view', label: 'View workflows', note: 'See the workflows and where items stand in them.' },
      { action: 'start', label: 'Start workflows', note: 'Send a version into review.' },
      { action: 'participate', label: 'Participate', note: 'Get review tasks: approve, reject, delegate, comment.' },
      { action: 'manage', label: 'Manage workflows', note: 'Design workflows and act on every instance.' },
    ],
  },
];

export function AppPermissions({ policy }: { policy: PolicyRecord }) {
  const client = useQueryClient();
  const id = useId();
  const key = ['access', 'app-permissions', policy.id];
  const rows = useQuery({
    queryKey: key,
    // At most one row per module action: the catalogue is seven long.
    queryFn: async ({ signal }) => (await requestList<AppPermissionRow>('/app-permissions', { filter: { policy: { _eq: policy.id } }, fields: ['id', 'policy', 'module', 'action'], limit: 100 }, signal)).data,
  });
  const [pending, setPending] = useState<Map<string, boolean>>(() => new Map());
  const [errors, setErrors] = useState<Record<string, unknown>>({});
  const [status, setStatus] = useState('');

  async function toggle(module: string, action: string, label: string, on: boolean): Promise<void> {
    const name = `${module}:${action}`;
    if (pending.has(name)) return;
    // Shown as asked at once; put back if the server refuses.
    setPending((p) => new Map(p).set(name, on));
    setErrors((e) => ({ ...e, [name]: null }));
    try {
      if (on) {
        const created = await request<number>('POST', '/app-permissions', { body: { policy: policy.id, module, action } });
        client.setQueryData<AppPermissionRow[]>(key, (old) => [...(old ?? []), { id: created, policy: policy.id, module, action }]);
      } else {
        const existing = (rows.data ?? []).filter((r) => r.module === module && r.action === action);
        await Promise.all(existing.map((r) => request('DELETE', `/app-permissions/${r.id}`)));
        client.setQueryData<AppPermissionRow[]>(key, (old) => (old ?? []).filter((r) => !(r.module === module && r.action === action)));
      }
      setStatus(`${label}: ${on ? 'granted' : 'revoked'}.`);
    } catch (err) {
      setErrors((e) => ({ ...e, [name]: err }));
      void rows.refetch();
    } finally {
      setPending((p) => {
        const next = new Map(p);
        next.delete(name);
        return next;
      });
    }
  }

  if (rows.error) return <div className="page-body"><ErrorNotice error={rows.error} onRetry={() => void rows.refetch()} /></div>;
  if (!rows.data) return <div className="page-body"><Loading label="Loading app permissions" /></div>;
  const granted = new Set(rows.data.map((r) => `${r.module}:${r.action}`));
  return (
    <div className="page-body">
      {policy.admin_access && <p className="notice">This policy is an administrator's: it has every app permission whatever is ticked here.</p>}
      <div className="access-cards">
        {MODULES.map((m) => (
          <fieldset key={m.module} className="access-card app-module">
            <legend><h2>{m.title}</h2></legend>
            {m.actions.map((a) => {
              const name = `${m.module}:${a.action}`;
              return (
                <div key={name}>
                  <div className="check-field">
                    <input id={`${id}-${name}`} type="checkbox" checked={pending.get(name) ?? granted.has(name)} aria-busy={pending.has(name) || undefined}
                      aria-describedby={`${id}-${name}-note`} onChange={(e) => void toggle(m.module, a.action, a.label, e.target.checked)} />
                    <div>
                      <label htmlFor={`${id}-${name}`}>{a.label}</label> <code className="muted">{name}</code>
                      <p className="field-note" id={`${id}-${name}-note`}>{a.note}</p>
                    </div>
                  </div>
                  {errors[name] !== null && errors[name] !== undefined && <ErrorNotice error={errors[name]} />}
                </div>
              );
            })}
          </fieldset>
        ))}
      </div>
      <p className="visually-hidden" role="status">{status}</p>
    </div>
  );
}
