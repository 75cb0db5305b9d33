/** Download names from clients: only the last path segment, no control characters, bounded. A name such as
 * `../../etc/passwd` becomes `passwd`; it never reaches a storage key (those are `{id}.{ext}`). */

export function sanitizeDownloadName(raw: string | null | undefined, fallback = 'file'): string {
  if (!raw) return fallback;
  // eslint-disable-next-line no-control-regex
  const cleaned = raw.replace(/[\u0000-\u001f\u007f]/g, '');
  const last = cleaned.split(/[\\/]/).filter((s) => s !== '' && s !== '.' && s !== '..').pop() ?? '';
  const trimmed = last.trim().slice(0, 255);
  return trimmed === '' ? fallback : trimmed;
}

/** `{id}.{ext}`, or `{id}` when the name carries no usable extension. */
export function storageKeyFor(id: string, ext: string): string {
  return ext ? `${id}.${ext}` : id;
}

/** The basename of a storage key: what cached transforms are prefixed with (`{basename}__...`). */
export function keyBase(filenameDisk: string): string {
  const dot = filenameDisk.indexOf('.');
  return dot < 0 ? filenameDisk : filenameDisk.slice(0, dot);
}
