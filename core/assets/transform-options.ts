/** The transform a request asks for (SPEC.md > Assets, transform parameters), validated: every value is checked
 * and bounded, anything else is 400 INVALID_QUERY naming the parameter. */

export const FITS = ['cover', 'contain', 'fill', 'inside', 'outside'] as const;
export type Fit = typeof FITS[number];

export const OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'tiff', 'gif'] as const;
export type OutputFormat = typeof OUTPUT_FORMATS[number];

/** One step of the `transforms` parameter: a sharp method from the allow list and its validated arguments. */
export type TransformStep = [string, ...unknown[]];

export interface TransformOptions {
  width?: number;
  height?: number;
  fit?: Fit;
  quality?: number;
  /** `auto` is resolved from the Accept header before the options are normalised. */
  format?: OutputFormat | 'auto';
  withoutEnlargement?: boolean;
  focalPointX?: number;
  focalPointY?: number;
  transforms?: TransformStep[];
}

/** Query parameters that ask for a transform (others, such as `download` or `access_token`, do not). */
export const TRANSFORM_PARAMS = ['key', 'transforms', 'width', 'height', 'fit', 'quality', 'format', 'withoutEnlargement', 'focal_point_x', 'focal_point_y'] as const;

export function requestsTransform(query: Record<string, string | undefined>): boolean {
  return TRANSFORM_PARAMS.some((p) => query[p] !== undefined);
}
