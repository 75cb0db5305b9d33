/** Where a sign-in may send the browser back to: PUBLIC_URL's origin, or a URL under an entry of the provider's
 * redirect allow-list (same parsed origin exactly, path prefix on a segment boundary). Anything that parses
 * surprisingly is refused: scheme-relative `//evil`, backslashes, userinfo (`https://host@evil`), control
 * characters, non-http schemes. */

function parse(raw: string): URL | null {
  // Browsers read "\" as "/" and skip tabs/newlines: refuse them rather than guess how a browser will read it.
  if (/[\\\s\u0000-\u001f\u007f]/.test(raw)) return null;
  let url: URL;
  try { url = new URL(raw); } catch { return null; }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  // An absolute URL must be written as one: "https:evil.com" or "https:/evil.com" parse, but are not what they look like.
  if (!/^https?:\/\/[^/]/i.test(raw)) return null;
  return url;
}

function underPrefix(url: URL, entry: URL): boolean {
  if (url.origin !== entry.origin) return false;
  const base = entry.pathname;
  if (base === '/' || url.pathname === base) return true;
  const withSlash = base.endsWith('/') ? base : `${base}/`;
  return url.pathname.startsWith(withSlash);
}

/** The redirect as a URL string when allowed, else null. */
export function allowedRedirect(raw: string, publicUrl: string, allowList: readonly string[]): string | null {
  const url = parse(raw);
  if (!url) return null;
  const own = parse(publicUrl);
  if (own && url.origin === own.origin) return url.toString();
  for (const item of allowList) {
    const entry = parse(item);
    if (entry && underPrefix(url, entry)) return url.toString();
  }
  return null;
}

/** `${PUBLIC_URL}/admin/`: where a sign-in without a redirect lands. */
export function defaultRedirect(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/admin/`;
}

/** The redirect with `reason=<CODE>` added (a failed or refused sign-in). */
export function withReason(redirect: string, reason: string): string {
  const url = new URL(redirect);
  url.searchParams.set('reason', reason);
  return url.toString();
}
