/** GET /server/health's verdict: `ok`; `warn` (200) while the shared store (Redis) does not answer, as the
 * instance still serves, degraded; `error` (503) while the database does not answer within 3 s. */
import { run } from '../db/database.ts';
import type { DatabasePort, StorePort } from '../ports.ts';

const PROBE_TIMEOUT_MS = 3000;

type Check = { status: 'error' | 'warn'; output: string }[];

export interface HealthReport {
  httpStatus: 200 | 503;
  body: { status: 'ok' | 'warn' | 'error'; checks?: Record<string, Check> };
}

/** True when `probe` succeeds within PROBE_TIMEOUT_MS. */
async function answers(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS); }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export async function checkHealth(services: DatabasePort & StorePort): Promise<HealthReport> {
  const { database, store } = services;
  const [db, shared] = await Promise.all([
    answers(() => run(database.db, 'select 1')),
    store.kind === 'redis' ? answers(() => store.get('health')) : Promise.resolve(true),
  ]);
  const checks: Record<string, Check> = {};
  if (!db) checks.database = [{ status: 'error', output: 'Database did not answer' }];
  if (!shared) checks.sharedStore = [{ status: 'warn', output: 'Shared store did not answer' }];
  if (!db) return { httpStatus: 503, body: { status: 'error', checks } };
  if (!shared) return { httpStatus: 200, body: { status: 'warn', checks } };
  return { httpStatus: 200, body: { status: 'ok' } };
}
