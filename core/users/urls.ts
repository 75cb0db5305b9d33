/** Where mailed links may point: PUBLIC_URL's default page, or a URL on the matching *_URL_ALLOW_LIST
 * (as Directus, so an invitation or reset request cannot be turned into a phishing mail). */
import { InvalidPayloadError } from '../errors.ts';

function normalized(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.origin}${u.pathname}`.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/** The link `base?token=...`: `requested` when allowed (else 400 INVALID_PAYLOAD), the default otherwise. */
export function mailLink(requested: unknown, allowList: string[], fallback: string, token: string, what: string): string {
  let base = fallback;
  if (requested !== undefined && requested !== null && requested !== '') {
    const wanted = typeof requested === 'string' ? normalized(requested) : null;
    if (!wanted || !allowList.some((allowed) => normalized(allowed) === wanted)) {
      throw new InvalidPayloadError(`URL "${String(requested)}" can't be used to ${what}.`);
    }
    base = requested as string;
  }
  const url = new URL(base);
  url.searchParams.set('token', token);
  return url.toString();
}

export function publicPath(publicUrl: string, path: string): string {
  return publicUrl.replace(/\/+$/, '') + path;
}
