/** The files the project shows to everyone: its logo and the sign-in page's images and favicon (svc_settings). The
 * asset endpoint serves them to any caller, whatever the permissions on svc_files say, as Directus does with its
 * public settings files: the sign-in page shows them before anyone signs in. Asked only when the caller's
 * permissions do not already allow the file. */
import { run, type Executor } from '../db/database.ts';

export async function isPublicProjectFile(db: Executor, id: string): Promise<boolean> {
  const rows = await run(db, '/*p*/ select 1 from svc_settings where id = 1 and $1::uuid in (project_logo, public_foreground, public_background, public_favicon)', [id]);
  return rows.length > 0;
}
