/** The document's title and version: settings.project_name (falling back to PROJECT_NAME) and package.json. */
import pkg from '../../package.json' with { type: 'json' };
import { run, type Executor } from '../db/database.ts';

export const SERVICE_VERSION: string = pkg.version;

export async function projectTitle(db: Executor, fallback: string): Promise<string> {
  const [row] = await run<{ project_name: string | null }>(db, 'select project_name from svc_settings where id = 1');
  return row?.project_name || fallback;
}
