/** Moving a version between statuses without a caller (the workflow engine: rejected, back to draft). */
import type { Executor } from '../db/database.ts';
import { run } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import type { VersionStatus } from './types.ts';

export async function setVersionStatus(db: Executor, versionId: string, status: VersionStatus): Promise<void> {
  const rows = await run(db, 'update svc_versions set status = $2, date_updated = now() where id = $1 returning id', [versionId, status]);
  if (rows.length === 0) throw new NotFoundError(`Version "${versionId}" doesn't exist.`);
}
