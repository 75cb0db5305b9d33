/** A file's thumbnail: a cover crop from the asset service for raster images (lazy, with the title as alt text),
 * a labelled tile with the file's kind for anything else. */
import { assetUrl } from '../app/project.tsx';
import { fileLabel, hasThumbnail, type FileRecord } from './types.ts';

export function Thumb({ file, size = 160, decorative = false }: { file: Pick<FileRecord, 'id' | 'type' | 'title' | 'filename_download' | 'modified_on'>; size?: number; decorative?: boolean }) {
  if (hasThumbnail(file)) {
    const src = assetUrl(file.id, { width: size, height: size, fit: 'cover' }) + (file.modified_on ? `&v=${encodeURIComponent(file.modified_on)}` : '');
    return <img className="thumb-img" src={src} alt={decorative ? '' : fileLabel(file)} loading="lazy" decoding="async" width={size} height={size} />;
  }
  const ext = (file.filename_download.match(/\.([a-z0-9]{1,5})$/i)?.[1] ?? file.type?.split('/')[1] ?? 'file').toUpperCase();
  return (
    <span className="thumb-file" role={decorative ? undefined : 'img'} aria-label={decorative ? undefined : `${fileLabel(file)} (${ext})`}>
      <span aria-hidden="true">{ext}</span>
    </span>
  );
}
