/** `Content-Disposition` from filename_download: an ASCII-only quoted `filename` (quotes, backslashes, control
 * and non-ASCII characters replaced, so no header injection and no broken quoting) plus the exact name as
 * RFC 5987 `filename*=UTF-8''...`. */

const RFC5987_EXTRA = /['()*]/g;

function asciiFallback(name: string): string {
  // Per code point (the u flag): an emoji outside the BMP becomes one `_`, not two.
  return name.replace(/[^\x20-\x7e]|["\\]/gu, '_');
}

function encodeRfc5987(name: string): string {
  return encodeURIComponent(name).replace(RFC5987_EXTRA, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function contentDisposition(filename: string, type: 'inline' | 'attachment'): string {
  // Path separators never belong to a download name.
  const name = filename.replace(/[/\\]/g, '_').replace(/[\r\n]/g, '') || 'file';
  return `${type}; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}
