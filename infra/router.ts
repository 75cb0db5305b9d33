/** The public entry: one CloudFront distribution (SST Router). Everything goes to the API Gateway, except
 * - /assets and /tus -> the container (assets are cached at the edge per the container's Cache-Control,
 *   ASSETS_CACHE_TTL);
 * - multipart POST /files and PATCH /files/{id} -> the container (Lambda request bodies stop at 6 MB);
 * - /utils/import and /utils/export -> the container (streamed bodies beyond 6 MB and 15 minutes).
 * CloudFront routes by path, not by method or content type, so the router's viewer-request snippet (which runs
 * before the routing code) moves multipart uploads under /_container, a route whose rewrite strips that prefix
 * again before the request reaches the container. Verify on the first deploy that the SST version in use runs
 * the Router-level injection before routing; if not, route /files to the container and let it forward JSON
 * requests, or use an ALB rule on Content-Type. */

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

/** Path prefixes served by the container; `/` (everything else) goes to the API. */
export const CONTAINER_PREFIXES = ['/assets', '/tus', '/utils/import', '/utils/export', '/_container'] as const;

/** One year: the longest an origin's Cache-Control may keep an object at the edge. */
const ONE_YEAR = 365 * 24 * 3600;

/** The cache policy of every route. defaultTtl and minTtl 0, so CloudFront caches exactly what the origin's
 * Cache-Control allows: `public, max-age=N` assets for N seconds (revalidated with their ETag), `private` ones
 * (authenticated) and anything without Cache-Control (every API answer) not at all. The query string is part of
 * the key (transform parameters, access_token); so is Authorization, which also makes CloudFront forward it on
 * GET and HEAD, and keeps one caller's response from being served to another. */
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
    edge: { viewerRequest: { injection: MULTIPART_TO_CONTAINER } },
    transform: { cachePolicy: CACHE_POLICY },
  });
}

export function addRoutes(router: sst.aws.Router, apiUrl: $util.Input<string>, containerUrl: $util.Input<string>) {
  router.route('/', apiUrl);
  router.route('/assets', containerUrl);
  router.route('/tus', containerUrl, { readTimeout: '60 seconds' });
  router.route('/utils/import', containerUrl, { readTimeout: '60 seconds' });
  router.route('/utils/export', containerUrl, { readTimeout: '60 seconds' });
  router.route('/_container', containerUrl, { rewrite: { regex: '^/_container/(.*)$', to: '/$1' }, readTimeout: '60 seconds' });
}
