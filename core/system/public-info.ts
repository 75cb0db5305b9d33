/** What anyone may know about the project before signing in (GET /server/info): its name and URL, and the public
 * face of the sign-in page (logo, color, foreground and background images, note, custom CSS, default appearance),
 * as Directus' /server/info carries them. Nothing here is a secret; settings a visitor must not see stay out. */
import { run, type Executor } from '../db/database.ts';

export interface PublicProjectInfo {
  name: string;
  url: string | null;
  descriptor: string | null;
  color: string | null;
  logo: string | null;
  public_foreground: string | null;
  public_background: string | null;
  public_favicon: string | null;
  public_note: string | null;
  custom_css: string | null;
  default_appearance: string;
  default_language: string;
  public_registration: boolean;
}

export async function readPublicProjectInfo(db: Executor, fallbackName: string): Promise<PublicProjectInfo> {
  const [row] = await run<Omit<PublicProjectInfo, 'name'> & { name: string | null }>(db, `select project_name as name,
    project_url as url, project_descriptor as descriptor, project_color as color, project_logo as logo, public_foreground,
    public_background, public_favicon, public_note, custom_css, default_appearance, default_language, public_registration
    from svc_settings where id = 1`);
  if (!row) {
    return {
      name: fallbackName, url: null, descriptor: null, color: null, logo: null, public_foreground: null, public_background: null,
      public_favicon: null, public_note: null, custom_css: null, default_appearance: 'auto', default_language: 'en-US', public_registration: false,
    };
  }
  return { ...row, name: row.name ?? fallbackName };
}
