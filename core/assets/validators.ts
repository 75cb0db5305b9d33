/** Strong validators of an asset and conditional requests (RFC 9110 13.1): If-None-Match wins over
 * If-Modified-Since; HTTP dates have second precision. */
import { createHash } from 'node:crypto';

/** A strong ETag from the parts that change whenever the bytes do. */
export function strongEtag(...parts: (string | number)[]): string {
  return `"${createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 27)}"`;
}

function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  // Weak comparison for If-None-Match: W/"x" matches "x".
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

export interface ConditionalHeaders {
  ifNoneMatch?: string | null;
  ifModifiedSince?: string | null;
}

export function notModified(req: ConditionalHeaders, etag: string, lastModified: Date): boolean {
  if (req.ifNoneMatch) return etagMatches(req.ifNoneMatch, etag);
  if (req.ifModifiedSince) {
    const since = Date.parse(req.ifModifiedSince);
    if (Number.isNaN(since)) return false;
    return Math.floor(lastModified.getTime() / 1000) <= Math.floor(since / 1000);
  }
  return false;
}

/** If-Range: the range applies only while the representation is unchanged (a strong ETag or an exact date). */
export function rangeStillValid(ifRange: string | null | undefined, etag: string, lastModified: Date): boolean {
  if (!ifRange) return true;
  const v = ifRange.trim();
  if (v.startsWith('"') || v.startsWith('W/')) return v === etag;
  const date = Date.parse(v);
  return !Number.isNaN(date) && Math.floor(lastModified.getTime() / 1000) === Math.floor(date / 1000);
}
