/** /settings/server: is the service well (GET /server/health: ok, warn while the shared store does not answer, error
 * while the database does not), and what it says about itself (GET /server/info). Read again on demand. */
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../api/errors.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Loading } from '../ui/Loading.tsx';
import { DATE_TIME } from './data.ts';

interface Health { status: 'ok' | 'warn' | 'error'; checks?: Record<string, { status: string; output: string }[]> }
interface Info { project: { name: string; url: string | null; node_env?: string; default_language?: string; public_registration?: boolean } }

/** Health answers 503 with its report when the database is down: the report is still what to show. */
async function readHealth(signal: AbortSignal): Promise<Health> {
  const res = await fetch('/server/health', { signal, credentials: 'same-origin' });
  try {
    return (await res.json()) as Health;
  } catch {
    throw new ApiError(res.status, [{ message: `The health check answered ${res.status} without a report.`, code: 'UNKNOWN' }]);
  }
}

async function readInfo(signal: AbortSignal): Promise<Info> {
  const res = await fetch('/server/info', { signal, credentials: 'same-origin' });
  if (!res.ok) throw new ApiError(res.status, [{ message: `The server answered ${res.status}.`, code: 'UNKNOWN' }]);
  return ((await res.json()) as { data: Info }).data;
}

const VERDICT = {
  ok: { label: 'Healthy', text: 'The database and the shared store answer.' },
  warn: { label: 'Degraded', text: 'The service answers, but a part it relies on does not (see below).' },
  error: { label: 'Failing', text: 'The database does not answer: requests that need it fail.' },
} as const;

const CHECK_NAMES: Record<string, string> = { database: 'Database', sharedStore: 'Shared store (Redis)' };

export default function ServerPage() {
  const health = useQuery({ queryKey: ['settings', 'health'], queryFn: ({ signal }) => readHealth(signal), staleTime: 0 });
  const info = useQuery({ queryKey: ['settings', 'info'], queryFn: ({ signal }) => readInfo(signal), staleTime: 0 });
  const refresh = (): void => { void health.refetch(); void info.refetch(); };
  const checkedAt = health.dataUpdatedAt ? DATE_TIME.format(new Date(health.dataUpdatedAt)) : null;
  return (
    <div className="main-pane">
      <header className="page-header">
        <h1>Server</h1>
        <button type="button" className="btn" onClick={refresh} disabled={health.isFetching || info.isFetching}>{health.isFetching || info.isFetching ? 'Checking…' : 'Check again'}</button>
      </header>
      <div className="page-body settings-cards">
        <section className="settings-card" aria-labelledby="health-title">
          <h2 id="health-title">Health</h2>
          {health.error ? <ErrorNotice error={health.error} onRetry={() => void health.refetch()} />
            : !health.data ? <Loading label="Checking" />
              : (
                <>
                  <p className="health-verdict" role="status">
                    <span className={`badge health-${health.data.status}`}>{VERDICT[health.data.status]?.label ?? health.data.status}</span>
                    <span>{VERDICT[health.data.status]?.text}</span>
                  </p>
                  {health.data.checks && (
                    <ul className="health-checks">
                      {Object.entries(health.data.checks).flatMap(([name, results]) => results.map((r, i) => (
                        <li key={`${name}-${i}`}><strong>{CHECK_NAMES[name] ?? name}:</strong> {r.output}</li>
                      )))}
                    </ul>
                  )}
                  {checkedAt && <p className="field-note">Checked {checkedAt}.</p>}
                </>
              )}
        </section>
        <section className="settings-card" aria-labelledby="info-title">
          <h2 id="info-title">About this server</h2>
          {info.error ? <ErrorNotice error={info.error} onRetry={() => void info.refetch()} />
            : !info.data ? <Loading label="Reading" />
              : (
                <dl className="facts">
                  <dt>Project</dt><dd>{info.data.project.name}</dd>
                  <dt>Website</dt><dd>{info.data.project.url ? <a href={info.data.project.url} target="_blank" rel="noreferrer">{info.data.project.url}</a> : <span className="muted">Not set</span>}</dd>
                  <dt>Environment</dt><dd className="mono">{info.data.project.node_env ?? '—'}</dd>
                  <dt>Default language</dt><dd>{info.data.project.default_language ?? '—'}</dd>
                  <dt>Registration</dt><dd>{info.data.project.public_registration ? 'Open' : 'Closed'}</dd>
                  <dt>Studio address</dt><dd className="mono">{location.origin}/admin</dd>
                </dl>
              )}
        </section>
      </div>
    </div>
  );
}
