/** /settings/extensions: the extensions found in EXTENSIONS_PATH at the last start (GET /extensions). Extensions load
 * once at boot: the API has no switch, so the page says how a change takes effect. */
import { useQuery } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';

interface Extension { id: string; enabled: boolean; folder: string; source: string; bundle: string | null }

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
                  <thead><tr><th scope="col">Folder</th><th scope="col">Status</th><th scope="col">Source</th><th scope="col">Part of</th></tr></thead>
                  <tbody>
                    {list.data.map((e) => (
                      <tr key={e.id}>
                        <td className="mono">{e.folder}</td>
                        <td>{e.enabled ? <span className="badge status-ok">Enabled</span> : <span className="badge">Disabled</span>}</td>
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
