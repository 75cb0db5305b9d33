/** Reading svc_versions rows for the services (the JSON column arrives parsed from pg, as text from some drivers). */
import type { Executor } from '../db/database.ts';
import { run } from '../db/database.ts';
import { isUuid } from '../uuid.ts';
import type { Delta, VersionRow } from './types.ts';

const COLUMNS = 'id, key, name, collection, item, hash, user_created, delta, status';

function normalise(row: VersionRow): VersionRow {
  const delta = typeof row.delta === 'string' ? JSON.parse(row.delta) as Delta | null : row.delta;
  return { ...row, delta: delta && typeof delta === 'object' && !Array.isArray(delta) ? delta : null };
}

/** The version, or null when the id is not a uuid or names no row. `lock` takes the row `for update`. */
export async function loadVersion(db: Executor, id: string, opts: { lock?: boolean } = {}): Promise<VersionRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await run<VersionRow>(db, `select ${COLUMNS} from svc_versions where id = $1${opts.lock ? ' for update' : ''}`, [id]);
  return row ? normalise(row) : null;
}

/** True when a workflow instance runs for the version (svc_workflow_instances.version_id is varchar). */
export async function hasRunningWorkflow(db: Executor, id: string): Promise<boolean> {
  const rows = await run(db, "select 1 from svc_workflow_instances where version_id = $1 and status = 'running' limit 1", [id]);
  return rows.length > 0;
}
