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

export function createRouter(apiUrl: $util.Input<string>, containerUrl: $util.Input<string>) {
  const router = new sst.aws.Router('Router', {
    edge: { viewerRequest: { injection: MULTIPART_TO_CONTAINER } },
  });
  router.route('/', apiUrl);
  router.route('/assets', containerUrl);
  router.route('/tus', containerUrl, { readTimeout: '60 seconds' });
  router.route('/utils/import', containerUrl, { readTimeout: '60 seconds' });
  router.route('/utils/export', containerUrl, { readTimeout: '60 seconds' });
  router.route('/_container', containerUrl, { rewrite: { regex: '^/_container/(.*)$', to: '/$1' }, readTimeout: '60 seconds' });
  return router;
}
