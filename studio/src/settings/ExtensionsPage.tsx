/** /settings/extensions: the extensions found in EXTENSIONS_PATH at the last start (GET /extensions). Extensions load
 * once at boot: the API has no switch, so the page says how a change takes effect. */
import { useQuery } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';

interface Extension {
  id: string; enabled: boolean; folder: string; source: string; bundle: string | null;
  type: 'hook' | 'endpoint' | null; description: string | null; version: string | null;
  /** What this server process did with it at start; null where it does not know (the functions half). */
  status: 'loaded' | 'failed' | 'disabled' | 'missing' | null;
  error?: string | null;
}

const TYPES: Record<string, string> = { hook: 'Hook (reacts to events)', endpoint: 'Endpoint (adds routes)' };
const STATUS: Record<string, { label: string; className: string }> = {
  loaded: { label: 'Running', className: 'badge status-ok' },
  failed: { label: 'Failed to load', className: 'badge health-error' },
  disabled: { label: 'Disabled', className: 'badge' },
  missing: { label: 'Folder missing', className: 'badge health-warn' },
};

const SOURCES: Record<string, string> = { local: 'Local folder', registry: 'Registry', module: 'Node module' };

export default function ExtensionsPage() {
  const list = useQuery({ queryKey: ['settings', 'extensions'], queryFn: ({ signal }) => request<Extension[]>('GET', '/extensions', { signal }) });
  const byId = new Map((list.data ?? []).map((e) => [e.id, e]));
  return (
    <div className="main-pane">
      <header className="page-header"><h1>Extensions</h1></header>
      <div className="page-body settings-stack">
        <p className="field-note settings-intro">Extensions are loaded from the server's extensions folder (EXTENSIONS_PATH) when it starts. Whether one is
          enabled is read at start-up too: change <span className="mono">enabled</span> in svc_extensions and restart the server for it to take effect.</p>
        {list.error ? <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />
          : !list.data ? <Loading label="Loading extensions" />
            : list.data.length === 0 ? (
              <div className="settings-empty"><p>No extensions are installed.</p><p className="muted">Put an extension's folder in EXTENSIONS_PATH and restart the server; see docs/extensions.md.</p></div>
            ) : (
              <div className="table-wrap">
                <table className="grid settings-table">
                  <caption className="visually-hidden">Extensions</caption>
                  <thead><tr><th scope="col">Extension</th><th scope="col">Kind</th><th scope="col">At start</th><th scope="col">Source</th><th scope="col">Part of</th></tr></thead>
                  <tbody>
                    {list.data.map((e) => (
                      <tr key={e.id}>
                        <td className="wrap">
                          <span className="mono">{e.folder}</span>{e.version && <span className="muted"> {e.version}</span>}
                          {e.description && <div className="field-note">{e.description}</div>}
                        </td>
                        <td>{e.type ? TYPES[e.type] ?? e.type : <span className="muted">—</span>}</td>
                        <td className="wrap">
                          {e.status ? <span className={STATUS[e.status]?.className ?? 'badge'}>{STATUS[e.status]?.label ?? e.status}</span>
                            : <span className={e.enabled ? 'badge status-ok' : 'badge'}>{e.enabled ? 'Enabled' : 'Disabled'}</span>}
                          {e.error && <div className="field-error">{e.error}</div>}
                        </td>
                        <td>{SOURCES[e.source] ?? e.source}</td>
                        <td>{e.bundle ? <span className="mono">{byId.get(e.bundle)?.folder ?? 'a bundle'}</span> : <span className="muted">—</span>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
      </div>
    </div>
  );
}
