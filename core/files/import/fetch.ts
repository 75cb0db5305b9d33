/** Fetching a URL for POST /files/import without server-side request forgery: http and https only; the host
 * is resolved here, every resolved address checked against the AddressPolicy, and the connection pinned to
 * the checked address (a custom `lookup`), so a second DNS answer can't redirect it. Redirects are followed
 * by hand (at most 5), each hop checked again. The body is handed back as a stream, never buffered. */
import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ContentTooLargeError, InvalidPayloadError, ServiceUnavailableError } from '../../errors.ts';
import type { AddressPolicy } from './addresses.ts';

export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface FetchOptions {
  policy: AddressPolicy;
  /** Socket inactivity timeout. */
  timeoutMs: number;
  maxBytes: number;
}

export interface FetchedBody {
  url: URL;
  type: string | null;
  /** From Content-Disposition, else the last path segment of the final URL. */
  filename: string;
  body: IncomingMessage;
}

function parseUrl(raw: unknown): URL {
  if (typeof raw !== 'string' || raw.length > 8192) throw new InvalidPayloadError('Invalid payload. "url" must be a URL.', { field: 'url' });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidPayloadError('Invalid payload. "url" must be a URL.', { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidPayloadError(`Invalid payload. Only http and https URLs can be imported, not "${url.protocol}".`, { field: 'url' });
  }
  if (url.username || url.password) throw new InvalidPayloadError('Invalid payload. URLs with credentials can\'t be imported.', { field: 'url' });
  return url;
}

function refused(): InvalidPayloadError {
  return new InvalidPayloadError('Invalid payload. The URL resolves to an address that can\'t be imported from.', { field: 'url' });
}

/** One checked address for the URL's host. */
async function resolveChecked(url: URL, policy: AddressPolicy): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  if (literal) {
    if (!policy.permits(host)) throw refused();
    return { address: host, family: literal as 4 | 6 };
  }
  let answers: { address: string; family: number }[];
  try {
    answers = await dnsLookup(host, { all: true, verbatim: true });
  } catch {
    throw new ServiceUnavailableError(`Couldn't resolve "${host.slice(0, 200)}".`);
  }
  // Any refused answer refuses the host: a name pointing at both public and private addresses is not trusted.
  if (answers.length === 0 || answers.some((a) => !policy.permits(a.address))) throw refused();
  return { address: answers[0].address, family: answers[0].family === 6 ? 6 : 4 };
}

function pinned(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

function request(url: URL, target: { address: string; family: 4 | 6 }, timeoutMs: number): Promise<IncomingMessage> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method: 'GET', lookup: pinned(target.address, target.family), timeout: timeoutMs, agent: false,
      headers: { 'user-agent': 'svc-content-import', accept: '*/*' },
    }, resolve);
    req.on('timeout', () => req.destroy(new ServiceUnavailableError('Timed out fetching the URL.')));
    req.on('error', (err) => reject(err instanceof ServiceUnavailableError ? err : new ServiceUnavailableError(`Couldn't fetch the URL: ${err.message}`)));
    req.end();
  });
}

function filenameOf(res: IncomingMessage, url: URL): string {
  const disposition = res.headers['content-disposition'];
  if (disposition) {
    const star = /filename\*\s*=\s*(?:UTF-8'[^']*')?([^;]+)/i.exec(disposition);
    if (star) {
      try {
        return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
      } catch { /* fall through */ }
    }
    const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
    if (plain) return plain[1].trim();
  }
  const last = url.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Follows the URL to a 2xx answer and returns its body stream. */
export async function fetchForImport(raw: unknown, opts: FetchOptions): Promise<FetchedBody> {
  let url = parseUrl(raw);
  for (let hop = 0; ; hop++) {
    const target = await resolveChecked(url, opts.policy);
    const res = await request(url, target, opts.timeoutMs);
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      res.resume();
      const location = res.headers.location;
      if (!location) throw new ServiceUnavailableError(`Couldn't fetch the URL: redirect without a location (${status}).`);
      if (hop >= MAX_REDIRECTS) throw new ServiceUnavailableError(`Couldn't fetch the URL: more than ${MAX_REDIRECTS} redirects.`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new ServiceUnavailableError('Couldn\'t fetch the URL: invalid redirect location.');
      }
      url = parseUrl(next.href);
      continue;
    }
    if (status < 200 || status >= 300) {
      res.resume();
      throw new ServiceUnavailableError(`Couldn't fetch the URL: it answered ${status}.`);
    }
    const length = Number(res.headers['content-length']);
    if (Number.isFinite(length) && length > opts.maxBytes) {
      res.destroy();
      throw new ContentTooLargeError(`File is larger than the maximum upload size of ${opts.maxBytes} bytes.`);
    }
    const type = res.headers['content-type'] ?? null;
    return { url, type, filename: filenameOf(res, url), body: res };
  }
}
