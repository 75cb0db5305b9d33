/** The response headers of the Studio (/admin), on its own and without imports: container/studio.ts sends them from
 * the standalone process and the container, and infra/studio.ts builds the CloudFront viewer-response function that
 * adds them at the edge in the cloud deployment, where the Studio's files come from a bucket. A strict
 * Content-Security-Policy: scripts and styles from this origin only (the build has no inline script), and only this
 * origin may frame the Studio. */

export const STUDIO_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "media-src 'self' blob:",
  "font-src 'self'", "connect-src 'self'", "frame-src 'self'", "object-src 'none'", "base-uri 'self'",
  "form-action 'self'", "frame-ancestors 'self'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': STUDIO_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};
