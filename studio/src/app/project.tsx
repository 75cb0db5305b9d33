/** The project's public face from GET /server/info: name, color, logo and sign-in images, note, and the custom CSS
 * an admin set in the settings. Read once per load; the color and custom CSS apply to the whole Studio. */
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { operations } from '../api/schema';

type ServerInfo = NonNullable<operations['serverInfo']['responses'][200]['content']['application/json']['data']['project']>;
export type ProjectInfo = ServerInfo & { name: string };

const FALLBACK: ProjectInfo = { name: 'Studio' };
const ProjectContext = createContext<ProjectInfo>(FALLBACK);

async function readProject(): Promise<ProjectInfo> {
  const { data, error } = await api.GET('/server/info');
  if (error || !data.data.project) return FALLBACK;
  return { ...data.data.project, name: data.data.project.name ?? 'Studio' };
}

/** Custom CSS goes in through a constructed stylesheet: the page's CSP allows no inline <style>. */
function applyCustomCss(css: string | null | undefined): void {
  const sheet = new CSSStyleSheet();
  try {
    sheet.replaceSync(css ?? '');
  } catch {
    return;
  }
  document.adoptedStyleSheets = [sheet];
}

/** Also started by the session check as the Studio opens, with its own first requests (./App.tsx). */
export const projectQuery = queryOptions({ queryKey: ['server-info'], queryFn: readProject, staleTime: Infinity });

export function ProjectProvider({ children }: { children: ReactNode }) {
  const { data } = useQuery(projectQuery);
  const project = data ?? FALLBACK;
  useEffect(() => {
    document.title = `${project.name} Studio`;
    if (project.color) document.documentElement.style.setProperty('--project', project.color);
    applyCustomCss(project.custom_css);
  }, [project]);
  return <ProjectContext.Provider value={project}>{children}</ProjectContext.Provider>;
}

export function useProject(): ProjectInfo {
  return useContext(ProjectContext);
}

/** A file as an image URL, optionally resized by the asset service. */
export function assetUrl(id: string, opts: { width?: number; height?: number; fit?: string } = {}): string {
  const params = new URLSearchParams();
  if (opts.width) params.set('width', String(opts.width));
  if (opts.height) params.set('height', String(opts.height));
  if (opts.fit) params.set('fit', opts.fit);
  if (opts.width || opts.height) params.set('format', 'webp');
  const q = params.toString();
  return `/assets/${encodeURIComponent(id)}${q ? `?${q}` : ''}`;
}
