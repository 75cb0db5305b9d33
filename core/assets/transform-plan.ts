/** A transform made concrete for one file: `auto` format chosen from the Accept header (avif, then webp, else
 * jpeg, as Directus), the output format defaulting to the source's (SVG to PNG), the row's focal point as default,
 * `fit` defaulting to cover. Its normal form (fixed key order, no absent keys) is what the cache name's digest
 * covers: `{original_basename}__{first 12 hex of sha256(JSON of the normal form)}.{output_ext}`. */
import { createHash } from 'node:crypto';
import type { AssetFile } from './file-row.ts';
import type { Fit, OutputFormat, TransformOptions, TransformStep } from './transform-options.ts';

/** Types sharp transforms; everything else is served raw and transform parameters are ignored. */
export const TRANSFORMABLE = new Set(['image/jpeg', 'image/jpg', 'image/png', 'image/webp', 'image/avif', 'image/tiff', 'image/gif', 'image/svg+xml']);

export function isTransformable(type: string | null): boolean {
  return type !== null && TRANSFORMABLE.has(type.split(';')[0].trim().toLowerCase());
}

export interface TransformPlan {
  width?: number;
  height?: number;
  fit: Fit;
  quality?: number;
  format: OutputFormat;
  withoutEnlargement?: boolean;
  focalPointX?: number;
  focalPointY?: number;
  transforms?: TransformStep[];
}

const SOURCE_FORMAT: Record<string, OutputFormat> = {
  'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/avif': 'avif',
  'image/tiff': 'tiff', 'image/gif': 'gif', 'image/svg+xml': 'png',
};

export const OUTPUT_TYPE: Record<OutputFormat, string> = {
  jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif', tiff: 'image/tiff', gif: 'image/gif',
};

export const OUTPUT_EXT: Record<OutputFormat, string> = {
  jpeg: 'jpg', png: 'png', webp: 'webp', avif: 'avif', tiff: 'tiff', gif: 'gif',
};

export function autoFormat(accept: string | null | undefined): OutputFormat {
  const a = (accept ?? '').toLowerCase();
  if (a.includes('image/avif')) return 'avif';
  if (a.includes('image/webp')) return 'webp';
  return 'jpeg';
}

export function planTransform(options: TransformOptions, file: AssetFile, accept: string | null | undefined): TransformPlan {
  const type = (file.type ?? '').split(';')[0].trim().toLowerCase();
  const format = options.format === 'auto' ? autoFormat(accept) : options.format ?? SOURCE_FORMAT[type] ?? 'png';
  const fit = options.fit ?? 'cover';
  const plan: TransformPlan = { fit, format };
  if (options.width !== undefined) plan.width = options.width;
  if (options.height !== undefined) plan.height = options.height;
  if (options.quality !== undefined) plan.quality = options.quality;
  if (options.withoutEnlargement) plan.withoutEnlargement = true;
  // The focal point matters only for cover crops of a fixed box.
  if (fit === 'cover' && plan.width !== undefined && plan.height !== undefined) {
    const x = options.focalPointX ?? file.focal_point_x ?? undefined;
    const y = options.focalPointY ?? file.focal_point_y ?? undefined;
    if (x !== undefined || y !== undefined) {
      if (x !== undefined) plan.focalPointX = x;
      if (y !== undefined) plan.focalPointY = y;
    }
  }
  if (options.transforms?.length) plan.transforms = options.transforms;
  return plan;
}

/** The normal form: keys in one fixed order, absent ones left out. */
export function normalizedPlan(plan: TransformPlan): string {
  const ordered: [string, unknown][] = [
    ['width', plan.width], ['height', plan.height], ['fit', plan.fit], ['quality', plan.quality], ['format', plan.format],
    ['withoutEnlargement', plan.withoutEnlargement], ['focal_point_x', plan.focalPointX], ['focal_point_y', plan.focalPointY],
    ['transforms', plan.transforms],
  ];
  return JSON.stringify(Object.fromEntries(ordered.filter(([, v]) => v !== undefined)));
}

export function transformDigest(plan: TransformPlan): string {
  return createHash('sha256').update(normalizedPlan(plan)).digest('hex').slice(0, 12);
}

/** The storage key of the cached output next to the original. */
export function cacheKeyFor(filenameDisk: string, plan: TransformPlan): string {
  // Up to the first dot, as the file purge (core/files/purge.ts) removes `{basename}__*` with the file.
  const dot = filenameDisk.indexOf('.');
  const base = dot > 0 ? filenameDisk.slice(0, dot) : filenameDisk;
  return `${base}__${transformDigest(plan)}.${OUTPUT_EXT[plan.format]}`;
}
