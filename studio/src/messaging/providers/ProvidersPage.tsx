/** Messaging > Providers: who sends each channel's messages. One table per channel with its primary marked (the
 * primary is the channel's sender when a log names none); add and edit per type with its settings (secrets masked),
 * make primary, enable or disable, send a test, delete (refused while template contents use the provider). */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { CHANNELS, providersQuery, type Channel, type Provider } from '../api.ts';
import { ProviderDialog } from './ProviderDialog.tsx';
import { TestSendDialog } from './TestSendDialog.tsx';
import { typeLabel } from './provider-types.ts';

const EMPTY: Record<Channel, string> = {
  email: 'No email provider: mail goes out through the transport in Settings, else the server\'s EMAIL_* configuration.',
  chat: 'No chat provider: chat messages go to the chat URL in Settings, if there is one.',
  inapp: 'No in-app provider. Add one to give templates in-app contents (notifications in the Studio\'s bell).',
};

type Open =
  | { kind: 'create'; channel: Channel }
  | { kind: 'edit'; provider: Provider }
  | { kind: 'test'; provider: Provider }
  | { kind: 'delete'; provider: Provider }
  | null;

export default function ProvidersPage() {
  const providers = useQuery(providersQuery);
  const qc = useQueryClient();
  const [open, setOpen] = useState<Open>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: providersQuery.queryKey });

  const change = useMutation({
    mutationFn: (a: { provider: Provider; action: 'primary' | 'enable' | 'disable' }) => a.action === 'primary'
      ? request('PATCH', `/notify/providers/${a.provider.id}/primary`)
      : request('PATCH', `/notify/providers/${a.provider.id}`, { body: { enabled: a.action === 'enable' } }),
    onMutate: () => setActionError(null),
    onError: (err) => setActionError(err),
    onSettled: refresh,
  });

  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Providers</h1>
        <button type="button" className="btn btn-primary" onClick={() => setOpen({ kind: 'create', channel: 'email' })}>Add provider</button>
      </header>
      <div className="page-body messaging-stack">
        {actionError !== null && <ErrorNotice error={actionError} />}
        {providers.error ? <ErrorNotice error={providers.error} onRetry={() => void providers.refetch()} />
          : !providers.data ? <Loading label="Loading providers" />
          : CHANNELS.map((c) => {
            const rows = providers.data.filter((p) => p.channel === c.id);
            return (
              <section key={c.id} className="messaging-card" aria-labelledby={`providers-${c.id}`}>
                <div className="card-head">
                  <h2 id={`providers-${c.id}`}>{c.label}</h2>
                  <button type="button" className="btn btn-small" onClick={() => setOpen({ kind: 'create', channel: c.id })}>Add {c.label.toLowerCase()} provider</button>
                </div>
                {rows.length === 0 ? <p className="muted card-empty">{EMPTY[c.id]}</p> : (
                  <table className="grid" aria-labelledby={`providers-${c.id}`}>
                    <thead>
                      <tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Delivery reports</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
                    </thead>
                    <tbody>
                      {rows.map((p) => (
                        <tr key={p.id}>
                          <th scope="row" className="cell-name">
                            <button type="button" className="link-button" onClick={() => setOpen({ kind: 'edit', provider: p })} aria-label={`Edit ${p.name}`}>{p.name}</button>
                            {p.is_primary && <span className="badge badge-accent">Primary</span>}
                          </th>
                          <td>{typeLabel(p.channel, p.type)}</td>
                          <td>{p.enabled ? <span className="status status-ok">Enabled</span> : <span className="status status-off">Disabled</span>}</td>
                          <td>{p.webhook_enabled ? 'On' : <span className="muted">Off</span>}</td>
                          <td className="row-actions">
                            <button type="button" className="btn btn-small" onClick={() => setOpen({ kind: 'test', provider: p })} aria-label={`Test send through ${p.name}`}>Test send</button>
                            {!p.is_primary && (
                              <button type="button" className="btn btn-small" disabled={change.isPending} onClick={() => change.mutate({ provider: p, action: 'primary' })}
                                aria-label={`Make primary: ${p.name}`}>Make primary</button>
                            )}
                            <button type="button" className="btn btn-small" disabled={change.isPending} onClick={() => change.mutate({ provider: p, action: p.enabled ? 'disable' : 'enable' })}
                              aria-label={`${p.enabled ? 'Disable' : 'Enable'} ${p.name}`}>{p.enabled ? 'Disable' : 'Enable'}</button>
                            <button type="button" className="btn btn-small btn-ghost btn-danger-text" onClick={() => setOpen({ kind: 'delete', provider: p })} aria-label={`Delete ${p.name}`}>Delete</button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </section>
            );
          })}
      </div>
      {open?.kind === 'create' && <ProviderDialog channel={open.channel} onClose={() => setOpen(null)} onSaved={() => { setOpen(null); void refresh(); }} />}
      {open?.kind === 'edit' && <ProviderDialog provider={open.provider} channel={open.provider.channel} onClose={() => setOpen(null)} onSaved={() => { setOpen(null); void refresh(); }} />}
      {open?.kind === 'test' && <TestSendDialog provider={open.provider} onClose={() => setOpen(null)} />}
      {open?.kind === 'delete' && (
        <ConfirmDialog title={`Delete ${open.provider.name}?`} confirmLabel="Delete provider" onClose={() => setOpen(null)}
          onConfirm={async () => {
            try {
              await request('DELETE', `/notify/providers/${open.provider.id}`);
            } catch (err) {
              // The server names the provider by id and lists the templates; said with the provider's name.
              const used = err instanceof ApiError && err.status === 400 ? /still used by template contents \(templates (.*)\)/.exec(err.message) : null;
              if (used) throw new Error(`${open.provider.name} is still used by the contents of ${used[1].includes(',') ? 'the templates' : 'the template'} ${used[1]}. Delete those contents, or switch them to another provider, first.`);
              throw err;
            }
            setOpen(null);
            await refresh();
          }}>
          <p>Messages that name this provider are sent by the channel's primary provider instead. A provider that template contents still use cannot be deleted.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
