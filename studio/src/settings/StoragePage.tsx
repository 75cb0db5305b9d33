/** /settings/storage: where files are kept. The built-in local folder always exists; more providers (another local
 * folder, an S3-compatible object store) are added, changed and deleted here (/system/storage-providers). Secrets
 * come back masked and stay as stored unless a new one is typed. */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { request, requestList } from '../api/client.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { CheckField, SelectField, splitError, TextField, type FieldErrors } from '../ui/form.tsx';
import { Loading } from '../ui/Loading.tsx';

export interface Provider {
  id: number;
  name: string;
  value: Record<string, unknown> & { driver: 'local' | 'objectstore' };
}

const MASK = '********';
const providersQuery = { queryKey: ['settings', 'storage-providers'], queryFn: ({ signal }: { signal: AbortSignal }) => request<Provider[]>('GET', '/system/storage-providers', { signal }) };

export default function StoragePage() {
  const client = useQueryClient();
  const providers = useQuery(providersQuery);
  // The names in the server's order, the default for uploads first.
  const locations = useQuery({ queryKey: ['settings', 'storage-locations'], queryFn: ({ signal }) => request<string[]>('GET', '/files/storage-locations', { signal }) });
  const fallback = locations.data?.[0];
  const isDefault = (name: string) => (fallback === name ? <span className="badge status-ok">Default for uploads</span> : null);
  const [editing, setEditing] = useState<Provider | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Provider | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const reload = () => Promise.all([client.invalidateQueries({ queryKey: ['settings', 'storage-providers'] }), client.invalidateQueries({ queryKey: ['settings', 'storage-locations'] })]);
  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Storage</h1>
        <button type="button" className="btn btn-primary" onClick={() => { setNotice(null); setEditing('new'); }}>Add storage</button>
      </header>
      <div className="page-body settings-stack">
        <p className="field-note settings-intro">Every file records the storage it was uploaded to. An upload that names no storage goes to the default: the
          first storage added here, else the built-in local folder (<span className="mono">local</span>), which is always there.</p>
        {notice && <p className="notice notice-success" role="status">{notice}</p>}
        {providers.error ? <ErrorNotice error={providers.error} onRetry={() => void providers.refetch()} />
          : !providers.data ? <Loading label="Loading storage" />
            : (
              <div className="table-wrap">
                <table className="grid settings-table">
                  <caption className="visually-hidden">Storage providers</caption>
                  <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Where</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
                  <tbody>
                    {providers.data.map((p) => (
                      <tr key={p.id}>
                        <td><span className="mono">{p.name}</span> {isDefault(p.name)}</td>
                        <td>{p.value.driver === 'objectstore' ? 'Object store (S3)' : 'Local folder'}</td>
                        <td>{p.value.driver === 'objectstore' ? `${String(p.value.bucket ?? '')} · ${String(p.value.region ?? '')}${p.value.endpoint ? ` · ${String(p.value.endpoint)}` : ''}` : String(p.value.root ?? '')}</td>
                        <td className="row-actions">
                          <button type="button" className="btn btn-small" onClick={() => { setNotice(null); setEditing(p); }} aria-label={`Edit ${p.name}`}>Edit</button>
                          <button type="button" className="btn btn-small btn-danger" onClick={() => setDeleting(p)} aria-label={`Delete ${p.name}`}>Delete</button>
                        </td>
                      </tr>
                    ))}
                    <tr>
                      <td><span className="mono">local</span> <span className="badge">Built in</span> {isDefault('local')}</td>
                      <td>Local folder</td>
                      <td className="muted">The server's STORAGE_LOCAL_ROOT</td>
                      <td />
                    </tr>
                  </tbody>
                </table>
              </div>
            )}
      </div>
      {editing && (
        <ProviderDialog provider={editing === 'new' ? null : editing} onClose={() => setEditing(null)}
          onSaved={async (name, created) => { setEditing(null); setNotice(created ? `Storage “${name}” added.` : `Storage “${name}” saved.`); await reload(); }} />
      )}
      {deleting && <DeleteProvider provider={deleting} onClose={() => setDeleting(null)} onDeleted={async () => { setNotice(`Storage “${deleting.name}” deleted.`); setDeleting(null); await reload(); }} />}
    </div>
  );
}

function DeleteProvider({ provider, onClose, onDeleted }: { provider: Provider; onClose(): void; onDeleted(): Promise<void> }) {
  const files = useQuery({
    queryKey: ['settings', 'files-on', provider.name],
    queryFn: ({ signal }) => requestList('/files', { fields: ['id'], limit: 0, meta: 'filter_count', filter: { storage: { _eq: provider.name } } }, signal),
  });
  const count = files.data?.meta.filter_count;
  return (
    <ConfirmDialog title={`Delete storage “${provider.name}”?`} confirmLabel="Delete storage" typeToConfirm={provider.name} onClose={onClose}
      onConfirm={async () => { await request('DELETE', `/system/storage-providers/${provider.id}`); await onDeleted(); }}>
      <p>The stored objects stay where they are, but the service forgets how to reach them.</p>
      <p>{count === undefined ? 'Counting the files kept there…' : count === 0 ? 'No file is kept there.'
        : <strong>{count === 1 ? '1 file is kept there and will fail to load' : `${count} files are kept there and will fail to load`} until a storage of the same name is added again.</strong>}</p>
    </ConfirmDialog>
  );
}

const OBJECTSTORE_FIELDS = ['bucket', 'region', 'accessKey', 'secretKey', 'endpoint', 'acl', 'serverSideEncryption'] as const;

function ProviderDialog({ provider, onClose, onSaved }: { provider: Provider | null; onClose(): void; onSaved(name: string, created: boolean): Promise<void> }) {
  const [name, setName] = useState(provider?.name ?? '');
  const [driver, setDriver] = useState<'local' | 'objectstore'>(provider?.value.driver ?? 'objectstore');
  const [value, setValue] = useState<Record<string, unknown>>(provider ? { ...provider.value } : { forcePathStyle: false });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const text = (k: string): string => (typeof value[k] === 'string' ? value[k] as string : '');
  const set = (k: string, v: unknown): void => { setValue((x) => ({ ...x, [k]: v })); setErrors(({ [k]: _gone, ...rest }) => rest); };

  function check(): FieldErrors {
    const out: FieldErrors = {};
    if (!provider && !/^[A-Za-z0-9_-]{1,64}$/.test(name)) out.name = 'Letters, digits, “-” and “_”, at most 64.';
    if (!provider && name === 'local') out.name = '“local” is the built-in folder; choose another name.';
    if (driver === 'local' && !text('root').startsWith('/')) out.root = 'An absolute path on the server, such as /srv/uploads.';
    if (driver === 'objectstore') for (const k of ['bucket', 'region', 'accessKey', 'secretKey'] as const) if (!text(k).trim()) out[k] = 'Required.';
    if (driver === 'objectstore' && text('endpoint') && !/^https?:\/\/\S+$/.test(text('endpoint'))) out.endpoint = 'A URL such as https://s3.example.com.';
    return out;
  }

  async function save(): Promise<void> {
    const local = check();
    setErrors(local);
    if (Object.keys(local).length > 0 || busy) return;
    setBusy(true);
    setError(null);
    const keep = driver === 'local' ? ['root'] : [...OBJECTSTORE_FIELDS, 'forcePathStyle'];
    const body = Object.fromEntries([['driver', driver], ...keep.map((k) => [k, value[k]]).filter(([, v]) => v !== undefined && v !== '')]);
    try {
      if (provider) await request('PATCH', `/system/storage-providers/${provider.id}`, { body: { value: body } });
      else await request('POST', '/system/storage-providers', { body: { name, value: body } });
      await onSaved(provider?.name ?? name, !provider);
    } catch (err) {
      // The server names a setting as value.<key> (core/storage/provider-config.ts).
      const split = splitError(err, ['name', ...keep.map((k) => `value.${k}`)]);
      setErrors(Object.fromEntries(Object.entries(split.fields).map(([k, v]) => [k.replace(/^value\./, ''), v])));
      setError(split.rest);
    } finally {
      setBusy(false);
    }
  }

  const secret = (k: 'accessKey' | 'secretKey', label: string) => (
    <TextField label={label} type="password" autoComplete="off" value={text(k)} onChange={(v) => set(k, v)} error={errors[k]}
      onFocus={(e) => { if (e.currentTarget.value === MASK) set(k, ''); }}
      note={provider && text(k) === MASK ? 'Stored and hidden. Leave it to keep it, or type a new one.' : undefined} />
  );
  return (
    <Dialog title={provider ? `Edit storage “${provider.name}”` : 'Add storage'} onClose={onClose} onSubmit={() => void save()}
      footer={<>
        <button type="button" className="btn" onClick={onClose}>Cancel</button>
        <button type="submit" className="btn btn-primary" disabled={busy}>{busy ? 'Saving…' : provider ? 'Save storage' : 'Add storage'}</button>
      </>}>
      {!provider && <TextField label="Name" value={name} onChange={(v) => { setName(v); setErrors(({ name: _n, ...rest }) => rest); }} error={errors.name}
        note="Files refer to their storage by this name; it cannot change later." autoComplete="off" />}
      <SelectField label="Kind" value={driver} onChange={(v) => setDriver(v as 'local' | 'objectstore')}>
        <option value="objectstore">Object store (S3 or compatible)</option>
        <option value="local">Local folder on the server</option>
      </SelectField>
      {driver === 'local' ? (
        <TextField label="Folder" value={text('root')} onChange={(v) => set('root', v)} error={errors.root} placeholder="/srv/uploads" note="An absolute path the server may write to." />
      ) : (
        <div className="form-grid">
          <TextField label="Bucket" value={text('bucket')} onChange={(v) => set('bucket', v)} error={errors.bucket} />
          <TextField label="Region" value={text('region')} onChange={(v) => set('region', v)} error={errors.region} placeholder="eu-west-1" />
          {secret('accessKey', 'Access key')}
          {secret('secretKey', 'Secret key')}
          <TextField label="Endpoint" className="full" value={text('endpoint')} onChange={(v) => set('endpoint', v)} error={errors.endpoint}
            placeholder="https://s3.example.com" note="Only for S3-compatible services other than AWS." />
          <SelectField label="Access control" value={text('acl')} onChange={(v) => set('acl', v || undefined)}>
            <option value="">The bucket's default</option>
            <option value="private">Private</option>
            <option value="public-read">Public read</option>
          </SelectField>
          <SelectField label="Encryption at rest" value={text('serverSideEncryption')} onChange={(v) => set('serverSideEncryption', v || undefined)}>
            <option value="">The bucket's default</option>
            <option value="AES256">AES-256</option>
            <option value="aws:kms">Key management service</option>
          </SelectField>
          <div className="full">
            <CheckField label="Path-style addresses" checked={value.forcePathStyle === true} onChange={(v) => set('forcePathStyle', v)}
              note="Needed by most S3-compatible servers (MinIO, s3rver): the bucket in the path rather than in the host name." />
          </div>
        </div>
      )}
      {error !== null && <ErrorNotice error={error} title="Not saved:" />}
    </Dialog>
  );
}
