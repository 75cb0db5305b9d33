/** The response headers of the Studio (/admin), on its own and without imports: container/studio.ts sends them from
 * the standalone process and the container, and infra/studio.ts builds the CloudFront viewer-response function that
 * adds them at the edge in the cloud deployment, where the Studio's files come from a bucket. A strict
 * Content-Security-Policy: scripts and styles from this origin only (the build has no inline script), and only this
 * origin may frame the Studio.
 *
 * Live preview shows a collection's website (its `preview_url`) in a frame beside the item editor. Only `frame-src`
 * names those websites, and only the exact origins an operator lists in STUDIO_PREVIEW_ORIGINS: a wildcard such as
 * `https:` would let any page be framed inside the Studio, and nothing else about the policy needs to change for a
 * frame (the website runs in its own origin, under its own policy). */

const BASE_DIRECTIVES = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "media-src 'self' blob:",
  "font-src 'self'", "connect-src 'self'",
];
const TAIL_DIRECTIVES = ["object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'self'"];

/** STUDIO_PREVIEW_ORIGINS: comma-separated origins (`https://www.example.com`, `http://localhost:3000`), each
 * exactly scheme, host and optional port; anything else (a path, a wildcard, a quote) is refused with the reason,
 * so a typo stops the start instead of loosening or breaking the policy. */
export function parsePreviewOrigins(list: readonly string[] | string | undefined): string[] {
  const items = typeof list === 'string' ? list.split(',') : (list ?? []);
  const out: string[] = [];
  for (const raw of items) {
    const text = raw.trim();
    if (text === '') continue;
    let url: URL | null = null;
    try {
      url = new URL(text);
    } catch {
      url = null;
    }
    const bare = url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname === '/' && !url.search && !url.hash
      && !url.username && !url.password;
    const origin = bare ? url!.origin : null;
    // Only what a CSP source may hold: no quote, semicolon, space or wildcard reaches the header.
    if (origin === null || !/^https?:\/\/[a-z0-9.\-[\]:]+$/.test(origin)) {
      throw new Error(`STUDIO_PREVIEW_ORIGINS: "${text}" is not an origin (scheme://host[:port], no path, no wildcard), e.g. https://www.example.com`);
    }
    if (!out.includes(origin)) out.push(origin);
  }
  return out;
}

/** The Studio's policy, with the websites live preview may frame (already checked by parsePreviewOrigins). */
export function studioCsp(previewOrigins: readonly string[] = []): string {
  return [...BASE_DIRECTIVES, ["frame-src 'self'", ...previewOrigins].join(' '), ...TAIL_DIRECTIVES].join('; ');
}

export function studioSecurityHeaders(previewOrigins: readonly string[] = []): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': studioCsp(previewOrigins),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
  };
}

/** Without preview origins. */
export const STUDIO_CSP = studioCsp();
export const SECURITY_HEADERS: Readonly<Record<string, string>> = studioSecurityHeaders();
