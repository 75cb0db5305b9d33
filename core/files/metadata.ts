/** What a stored file is, read back from storage after it was written: the real image type and pixel size
 * (sharp, on a prefix of the object, so a spoofed Content-Type can't produce a wrong width/height), the
 * charset of text, and EXIF/IPTC/GPS metadata (exifr, from the first bytes) made JSON-safe. Only a bounded
 * prefix of the object is read (growing once for images whose header lies further in), never the whole file. */
import { loadSharp } from '../assets/load-sharp.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { readPrefix } from './prefix.ts';
import { jsonSafe } from './json-safe.ts';
import { sniffImage } from './sniff.ts';

export interface ProbedFile {
  type: string | null;
  width: number | null;
  height: number | null;
  duration: number | null;
  charset: string | null;
  metadata: Record<string, unknown> | null;
}

/** Bytes read for EXIF/IPTC and the image header; images whose header lies further in get one larger read. */
const HEAD_BYTES = 256 * 1024;
const IMAGE_RETRY_BYTES = 8 * 1024 * 1024;

const SHARP_FORMAT_TYPES: Record<string, string> = {
  jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', tiff: 'image/tiff',
  avif: 'image/avif', heif: 'image/heif', svg: 'image/svg+xml', jp2: 'image/jp2', jxl: 'image/jxl',
};

interface ImageInfo { type: string; width: number | null; height: number | null }

async function imageInfo(head: Buffer): Promise<ImageInfo | null> {
  try {
    const sharp = await loadSharp();
    const m = await sharp(head, { failOn: 'none', limitInputPixels: false }).metadata();
    const type = m.format ? SHARP_FORMAT_TYPES[m.format] : undefined;
    if (!type) return null;
    // Orientations 5-8 are rotated a quarter turn: report the size as displayed (Directus does the same).
    const rotated = (m.orientation ?? 1) >= 5;
    const width = m.width ?? null;
    const height = m.height ?? null;
    return { type, width: rotated ? height : width, height: rotated ? width : height };
  } catch {
    return null;
  }
}

async function exifMetadata(head: Buffer): Promise<Record<string, unknown> | null> {
  try {
    // Loaded on the first upload that needs it, not at import.
    const { default: exifr } = await import('exifr');
    const parsed: unknown = await exifr.parse(head, {
      tiff: true, ifd0: {}, ifd1: false, exif: true, gps: true, interop: false, iptc: true, xmp: false, icc: false,
      makerNote: false, userComment: false, mergeOutput: false, translateValues: true, reviveValues: true, sanitize: true,
    });
    if (!parsed || typeof parsed !== 'object') return null;
    const safe = jsonSafe(parsed);
    return safe && typeof safe === 'object' && !Array.isArray(safe) && Object.keys(safe).length ? (safe as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function declaredCharset(declaredType: string | null): string | null {
  const m = declaredType ? /;\s*charset\s*=\s*"?([A-Za-z0-9._:-]{1,40})"?/i.exec(declaredType) : null;
  return m ? m[1].toLowerCase() : null;
}

function baseType(declaredType: string | null): string | null {
  const t = declaredType?.split(';')[0].trim().toLowerCase();
  return t && /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(t) ? t : null;
}

/** Charset of text content: the declared one, else `us-ascii` or `utf-8` when the first bytes are valid as such. */
function textCharset(head: Buffer, complete: boolean): string | null {
  let end = head.length;
  if (!complete) {
    // Don't judge a multi-byte sequence cut at the end of the prefix.
    let back = 0;
    while (back < 3 && end - back > 0 && (head[end - back - 1] & 0xc0) === 0x80) back++;
    if (end - back > 0 && head[end - back - 1] >= 0xc0) end = end - back - 1;
  }
  const slice = head.subarray(0, end);
  if (slice.every((b) => b < 0x80)) return 'us-ascii';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(slice);
    return 'utf-8';
  } catch {
    return null;
  }
}

function isTextual(type: string | null): boolean {
  return !!type && (type.startsWith('text/') || /^application\/(json|xml|javascript|x-www-form-urlencoded|ld\+json)$/.test(type) || type.endsWith('+xml') || type.endsWith('+json'));
}

export async function probeStoredFile(driver: StorageDriver, key: string, declaredType: string | null): Promise<ProbedFile> {
  const declared = baseType(declaredType);
  const result: ProbedFile = { type: declared, width: null, height: null, duration: null, charset: null, metadata: null };
  const stored = await driver.stat(key);
  if (!stored || stored.size === 0) {
    result.charset = isTextual(declared) ? declaredCharset(declaredType) : null;
    return result;
  }
  let head = await readPrefix(driver, key, Math.min(stored.size, HEAD_BYTES));
  const sniffed = sniffImage(head);
  if (sniffed || declared?.startsWith('image/')) {
    let info = await imageInfo(head);
    if ((!info || info.width === null) && stored.size > head.length && sniffed) {
      head = await readPrefix(driver, key, Math.min(stored.size, IMAGE_RETRY_BYTES));
      info = await imageInfo(head);
    }
    if (info) {
      result.type = info.type;
      result.width = info.width;
      result.height = info.height;
    } else if (sniffed) {
      result.type = sniffed;
    }
  }
  if (result.type?.startsWith('image/') && result.type !== 'image/svg+xml') {
    result.metadata = await exifMetadata(head.length > HEAD_BYTES ? head.subarray(0, HEAD_BYTES) : head);
  }
  if (isTextual(result.type)) {
    result.charset = declaredCharset(declaredType) ?? textCharset(head, head.length >= stored.size);
  }
  return result;
}
