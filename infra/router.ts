/** The public entry: one CloudFront distribution (SST Router). Everything goes to the API Gateway, except
 * - /assets and /tus -> the container (assets are cached at the edge per the container's Cache-Control,
 *   ASSETS_CACHE_TTL);
 * - multipart POST /files and PATCH /files/{id} -> the container (Lambda request bodies stop at 6 MB);
 * - /utils/import and /utils/export -> the container (streamed bodies beyond 6 MB and 15 minutes);
 * - /websocket and /realtime -> the container (realtime, issue 31: a WebSocket or an SSE stream stays open for as
 *   long as the client stays; Lambda behind API Gateway can hold neither). REALTIME_PATHS below has the details;
 * - /admin -> the Studio's bucket (infra/studio.ts registers it on this router; its security headers come from the
 *   router's viewer-response snippet, STUDIO_RESPONSE_HEADERS).
 * CloudFront routes by path, not by method or content type, so the router's viewer-request snippet (which runs
 * before the routing code) moves multipart uploads under /_container, a route whose rewrite strips that prefix
 * again before the request reaches the container. SST v3.19 and v4.17 put the Router-level injection first in the
 * viewer-request function, before the routing code (platform/src/components/aws/router.ts, createRequestFunction);
 * with an SST that did not, route /files to the container and let it forward JSON requests, or use an ALB rule on
 * Content-Type. */

import { STUDIO_RESPONSE_HEADERS } from './studio.ts';

/** CloudFront Functions JavaScript; sees `event`. Kept ES5 so any CloudFront Functions runtime accepts it. */
export const MULTIPART_TO_CONTAINER = `
var r = event.request;
var ct = r.headers['content-type'] ? r.headers['content-type'].value.toLowerCase() : '';
if (ct.indexOf('multipart/form-data') === 0 &&
    ((r.method === 'POST' && (r.uri === '/files' || r.uri === '/files/')) ||
     (r.method === 'PATCH' && /^\\/files\\/[^\\/]+$/.test(r.uri)))) {
  r.uri = '/_container' + r.uri;
}
`;

/** The realtime endpoints (docs/deployment.md > Realtime): `GET /websocket` with `Upgrade: websocket` and the
 * Server-Sent Events stream `GET /realtime`. What each needs at the edge, and why nothing else changes:
 * - WebSocket: CloudFront upgrades on any behaviour once the origin request policy forwards Sec-WebSocket-Key and
 *   Sec-WebSocket-Version; SST's Router attaches the managed AllViewerExceptHostHeader policy (every viewer header
 *   but Host, CACHE_POLICY below), so they, Sec-WebSocket-Protocol/-Extensions, the query string (access_token)
 *   and the session cookie all reach the container. Upgrade and Connection are hop-by-hop headers CloudFront acts
 *   on itself (it opens the upgrade towards the origin); no policy lists them.
 * - No caching: CACHE_POLICY's defaultTtl and minTtl are 0, so an answer without a `public` Cache-Control (a 101,
 *   an SSE stream, an error) is never stored and every request goes to the origin.
 * - SSE not held back: CloudFront relays a chunked answer as it arrives and compresses only answers with a
 *   Content-Length (and text/event-stream is not a type it compresses), so an event is not buffered at the edge.
 * - Timeouts: the origin read timeout is also the longest gap CloudFront accepts between two packets of an answer.
 *   The server writes a heartbeat every WEBSOCKETS_HEARTBEAT_PERIOD (30 s: `{type:'ping'}` / `: ping`), so these
 *   routes get REALTIME_READ_TIMEOUT (60 s, CloudFront's maximum without a quota increase) instead of SST's
 *   default. CloudFront closes a WebSocket after 10 minutes without a byte from the origin (not adjustable): the
 *   heartbeat covers that too. The origin keep-alive timeout (idle CloudFront -> ALB connections between requests)
 *   does not apply to an open stream and stays SST's. The ALB's idle timeout: infra/container.ts. */
export const REALTIME_PATHS = ['/websocket', '/realtime'] as const;

/** The server's default heartbeat period (WEBSOCKETS_HEARTBEAT_PERIOD, core/config.ts) the timeouts here and in
 * infra/container.ts are sized for. Raising the period beyond half of them cuts idle sockets. */
export const REALTIME_HEARTBEAT_SECONDS = 30;

/** CloudFront's origin read timeout on the realtime routes: above the heartbeat, at CloudFront's default maximum. */
export const REALTIME_READ_TIMEOUT = '60 seconds';

/** Path prefixes served by the container; `/` (everything else) goes to the API. */
export const CONTAINER_PREFIXES = ['/assets', '/tus', '/utils/import', '/utils/export', ...REALTIME_PATHS, '/_container'] as const;

/** One year: the longest an origin's Cache-Control may keep an object at the edge. */
const ONE_YEAR = 365 * 24 * 3600;

/** The cache policy of every route. defaultTtl and minTtl 0, so CloudFront caches exactly what the origin's
 * Cache-Control allows: `public, max-age=N` assets for N seconds (revalidated with their ETag), `private` ones
 * (authenticated) and anything without Cache-Control (every API answer) not at all. The query string is part of
 * the key (transform parameters, access_token); so is Authorization, which also makes CloudFront forward it on
 * GET and HEAD, and keeps one caller's response from being served to another.
 *
 * Cookies (the Studio's session mode: the httpOnly `svc_session_token` set by POST /auth/login, sent back on every
 * API request): `cookiesConfig: none` keeps them out of the cache key only. What reaches the origin is the union of
 * the cache key and the behaviour's origin request policy, and SST's Router (lazy routes: the `.route()` calls
 * here) attaches CloudFront's managed AllViewerExceptHostHeader policy (b689b0a8-53d0-40ab-baf2-68738e2966ac,
 * platform/src/components/aws/router.ts, SST v3.19 and v4.17): every viewer header but Host, every cookie and every
 * query string go to the origin. So the Cookie header reaches API Gateway (HTTP API payload 2.0 hands it to the
 * Lambda as `event.cookies`, which hono/aws-lambda joins back into a Cookie header; Set-Cookie goes out through the
 * result's `cookies`, test/lambda/lambda.test.ts) and the container, and the answer's Set-Cookie comes back to the
 * browser (cookies are forwarded, so CloudFront does not strip it; not testable offline: check a sign-in on the first
 * deploy). Nothing to change, and keying the cache on the cookie would only fragment it: nothing authenticated is
 * stored at the edge (API answers carry no Cache-Control and defaultTtl is 0; an asset is `public` only when the
 * public role may read it, core/assets/serve.ts, the same for everyone). For the Studio's bucket, SST's routing code
 * drops the cookies before the request goes to S3. */
export const CACHE_POLICY = {
  comment: 'svc: honour the origin Cache-Control',
  defaultTtl: 0,
  minTtl: 0,
  maxTtl: ONE_YEAR,
  parametersInCacheKeyAndForwardedToOrigin: {
    cookiesConfig: { cookieBehavior: 'none' as const },
    headersConfig: { headerBehavior: 'whitelist' as const, headers: { items: ['authorization'] } },
    queryStringsConfig: { queryStringBehavior: 'all' as const },
    enableAcceptEncodingBrotli: true,
    enableAcceptEncodingGzip: true,
  },
};

/** The distribution, created first so its URL can be every half's PUBLIC_URL; routes are added by addRoutes. */
export function createRouter(domain: string | null = null) {
  return new sst.aws.Router('Router', {
    ...(domain ? { domain } : {}),
    edge: { viewerRequest: { injection: MULTIPART_TO_CONTAINER }, viewerResponse: { injection: STUDIO_RESPONSE_HEADERS } },
    transform: { cachePolicy: CACHE_POLICY },
  });
}

export function addRoutes(router: sst.aws.Router, apiUrl: $util.Input<string>, containerUrl: $util.Input<string>) {
  router.route('/', apiUrl);
  router.route('/assets', containerUrl);
  router.route('/tus', containerUrl, { readTimeout: '60 seconds' });
  router.route('/utils/import', containerUrl, { readTimeout: '60 seconds' });
  router.route('/utils/export', containerUrl, { readTimeout: '60 seconds' });
  for (const path of REALTIME_PATHS) router.route(path, containerUrl, { readTimeout: REALTIME_READ_TIMEOUT });
  router.route('/_container', containerUrl, { rewrite: { regex: '^/_container/(.*)$', to: '/$1' }, readTimeout: '60 seconds' });
}
