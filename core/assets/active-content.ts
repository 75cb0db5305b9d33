/** Types a browser would render as a document and run script in (HTML, SVG, XML, JavaScript...). Served from
 * the API's own origin they could act with a logged-in user's cookies, so such assets always carry
 * `Content-Security-Policy: sandbox` (a unique opaque origin, no script) next to the `X-Content-Type-Options:
 * nosniff` every asset carries. */

const ACTIVE = new Set([
  'text/html', 'application/xhtml+xml', 'image/svg+xml', 'text/xml', 'application/xml', 'text/xsl',
  'application/xslt+xml', 'text/javascript', 'application/javascript', 'application/x-javascript',
  'application/ecmascript', 'text/ecmascript', 'application/wasm', 'text/vtt',
  'application/rdf+xml', 'application/mathml+xml', 'multipart/x-mixed-replace',
]);

export function isActiveContent(type: string): boolean {
  const base = type.split(';')[0].trim().toLowerCase();
  return ACTIVE.has(base) || base.endsWith('+xml') || base === '' || !/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(base);
}

/** A Content-Type safe to send: malformed values (which could be header-injected or sniffed) become octet-stream. */
export function safeContentType(type: string | null): string {
  const t = (type ?? '').trim();
  return /^[A-Za-z0-9.+-]+\/[A-Za-z0-9.+-]+(\s*;\s*[A-Za-z0-9._-]+=("[^"\r\n]*"|[A-Za-z0-9._-]+))*$/.test(t) ? t : 'application/octet-stream';
}
