/** The shapes of svc_files and svc_folders as the Studio reads them (GET /files, GET /folders). */

export interface FileRecord {
  id: string;
  storage?: string;
  filename_download: string;
  title: string | null;
  type: string | null;
  folder: string | null;
  /** bigint in the database: the API may answer a number or a numeric string. */
  filesize: number | string | null;
  width: number | null;
  height: number | null;
  duration?: number | null;
  description?: string | null;
  location?: string | null;
  tags?: string[] | null;
  focal_point_x?: number | null;
  focal_point_y?: number | null;
  uploaded_by?: string | null;
  created_on?: string | null;
  modified_on?: string | null;
  charset?: string | null;
  metadata?: Record<string, unknown> | null;
}

export interface FolderRecord {
  id: string;
  name: string;
  parent: string | null;
}

/** The fields a list or grid of files needs. */
export const FILE_LIST_FIELDS = ['id', 'filename_download', 'title', 'type', 'filesize', 'width', 'height', 'folder', 'created_on', 'focal_point_x', 'focal_point_y'];

export function isImage(file: Pick<FileRecord, 'type'>): boolean {
  return typeof file.type === 'string' && file.type.startsWith('image/');
}

/** Images the asset service can render as a thumbnail (it resizes raster images; SVG is served as is). */
export function hasThumbnail(file: Pick<FileRecord, 'type'>): boolean {
  return isImage(file) && !/svg|icon|x-icon|heic|heif|tiff/.test(file.type ?? '');
}

export function fileLabel(file: Pick<FileRecord, 'title' | 'filename_download'>): string {
  return file.title?.trim() || file.filename_download;
}

export function formatBytes(value: number | string | null | undefined): string {
  const n = typeof value === 'string' ? Number(value) : value;
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** A short name for a MIME type ("PNG image", "PDF"). */
export function typeLabel(type: string | null | undefined): string {
  if (!type) return 'Unknown';
  const [major, minor = ''] = type.split('/');
  const sub = minor.replace(/^x-/, '').replace(/\+.*$/, '').toUpperCase();
  if (major === 'image') return `${sub} image`;
  if (major === 'video') return `${sub} video`;
  if (major === 'audio') return `${sub} audio`;
  if (type === 'application/pdf') return 'PDF';
  return sub || type;
}
