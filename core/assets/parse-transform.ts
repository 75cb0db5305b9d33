/** Query string (or a preset record) -> TransformOptions. Integers are plain decimal digits; width and height
 * are capped by ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION; `transforms` is a JSON array of `[method, ...args]` steps
 * limited to an allow list of sharp operations with bounded arguments. */
import { InvalidQueryError } from '../errors.ts';
import { FITS, type Fit, type OutputFormat, type TransformOptions, type TransformStep } from './transform-options.ts';

type Raw = Record<string, unknown>;

const FORMAT_ALIASES: Record<string, OutputFormat | 'auto'> = {
  jpg: 'jpeg', jpeg: 'jpeg', png: 'png', webp: 'webp', avif: 'avif', tiff: 'tiff', auto: 'auto',
};

function bad(param: string, why: string): never {
  throw new InvalidQueryError(`Invalid query parameter "${param}": ${why}.`);
}

function int(raw: Raw, param: string, min: number, max: number): number | undefined {
  const v = raw[param];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n)) bad(param, 'expected a whole number');
  if (n < min || n > max) bad(param, `expected a value between ${min} and ${max}`);
  return n;
}

function bool(raw: Raw, param: string): boolean | undefined {
  const v = raw[param];
  if (v === undefined || v === null) return undefined;
  if (v === true || v === 'true' || v === '' || v === '1') return true;
  if (v === false || v === 'false' || v === '0') return false;
  bad(param, 'expected true or false');
}

function oneOf<T extends string>(raw: Raw, param: string, values: readonly T[]): T | undefined {
  const v = raw[param];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) bad(param, `expected one of ${values.join(', ')}`);
  return v as T;
}

function format(raw: Raw): OutputFormat | 'auto' | undefined {
  const v = raw.format;
  if (v === undefined || v === null) return undefined;
  const f = typeof v === 'string' ? FORMAT_ALIASES[v.toLowerCase()] : undefined;
  if (!f) bad('format', 'expected one of jpg, jpeg, png, webp, avif, tiff, auto');
  return f;
}

const num = (min: number, max: number) => (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;
const color = (v: unknown): boolean => typeof v === 'string' && /^(#[0-9a-fA-F]{3,8}|[a-z]{3,20})$/.test(v);
const modulation = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)
  && Object.entries(v).every(([k, x]) => ['brightness', 'saturation', 'lightness', 'hue'].includes(k) && num(-360, 360)(x));

/** sharp methods `transforms` may call, and a check per positional argument (all optional). */
const STEPS: Record<string, ((v: unknown) => boolean)[]> = {
  rotate: [num(-360, 360)],
  flip: [], flop: [], negate: [], grayscale: [], greyscale: [], normalize: [], normalise: [],
  blur: [num(0.3, 100)],
  sharpen: [],
  median: [num(1, 50)],
  gamma: [num(1, 3), num(1, 3)],
  threshold: [num(0, 255)],
  tint: [color],
  flatten: [(v) => typeof v === 'object' && v !== null && Object.keys(v).every((k) => k === 'background') && color((v as Raw).background)],
  modulate: [modulation],
};
const MAX_STEPS = 20;

function transforms(raw: Raw): TransformStep[] | undefined {
  const v = raw.transforms;
  if (v === undefined || v === null) return undefined;
  let parsed: unknown = v;
  if (typeof v === 'string') {
    if (v.length > 2000) bad('transforms', 'too long');
    try {
      parsed = JSON.parse(v);
    } catch {
      bad('transforms', 'expected a JSON array of [method, ...arguments] steps');
    }
  }
  if (!Array.isArray(parsed)) bad('transforms', 'expected a JSON array of [method, ...arguments] steps');
  if (parsed.length > MAX_STEPS) bad('transforms', `at most ${MAX_STEPS} steps`);
  // An empty list asks for nothing (as Directus: the original).
  if (parsed.length === 0) return undefined;
  return parsed.map((step: unknown) => {
    if (!Array.isArray(step) || typeof step[0] !== 'string') bad('transforms', 'every step is an array [method, ...arguments]');
    const [method, ...args] = step as [string, ...unknown[]];
    const checks = Object.hasOwn(STEPS, method) ? STEPS[method] : undefined;
    if (!checks) bad('transforms', `"${method.slice(0, 40)}" is not an allowed transformation`);
    if (args.length > checks.length || !args.every((a, i) => checks[i](a))) bad('transforms', `invalid arguments for "${method}"`);
    return [method, ...args] as TransformStep;
  });
}

/** Parses transform parameters; `maxDimension` bounds width and height. */
export function parseTransform(raw: Raw, maxDimension: number): TransformOptions {
  const options: TransformOptions = {
    width: int(raw, 'width', 1, maxDimension),
    height: int(raw, 'height', 1, maxDimension),
    fit: oneOf<Fit>(raw, 'fit', FITS),
    quality: int(raw, 'quality', 1, 100),
    format: format(raw),
    withoutEnlargement: bool(raw, 'withoutEnlargement'),
    focalPointX: int(raw, 'focal_point_x', 0, 1_000_000),
    focalPointY: int(raw, 'focal_point_y', 0, 1_000_000),
    transforms: transforms(raw),
  };
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as TransformOptions;
}
