/** The frame of the pages before sign-in: the project's name, logo and color on the left with the form, its
 * background image, foreground image and public note on the right (svc_settings: project_logo, public_background,
 * public_foreground, public_note). */
import type { ReactNode } from 'react';
import { assetUrl, useProject } from '../app/project.tsx';

export function PublicLayout({ title, children }: { title: string; children: ReactNode }) {
  const project = useProject();
  const art = project.public_background ? { backgroundImage: `url(${assetUrl(project.public_background, { width: 1600 })})` } : undefined;
  return (
    <div className="public">
      <main className="public-panel" aria-labelledby="public-title">
        <div className="public-brand">
          {project.logo ? <img src={assetUrl(project.logo, { width: 80, height: 80, fit: 'contain' })} alt="" /> : <span className="mark" aria-hidden="true">{project.name.slice(0, 1).toUpperCase()}</span>}
          <div>
            <div><strong>{project.name}</strong></div>
            {project.descriptor && <div className="muted">{project.descriptor}</div>}
          </div>
        </div>
        <h1 id="public-title">{title}</h1>
        {children}
      </main>
      <div className="public-art" style={art} aria-hidden={project.public_note ? undefined : true}>
        {project.public_foreground && <img className="public-foreground" src={assetUrl(project.public_foreground, { width: 960 })} alt="" />}
        {project.public_note && <p className="public-note">{project.public_note}</p>}
      </div>
    </div>
  );
}
