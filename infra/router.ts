/** The public entry: one CloudFront distribution (SST Router). Everything goes to the API Gateway, except
 * - /assets/* and /tus/* -> the container (assets are cached at the edge per the container's Cache-Control,
 *   ASSETS_CACHE_TTL);
 * - multipart POST /files and PATCH /files/{id} -> the container (Lambda request bodies stop at 6 MB).
 * CloudFront routes by path only, so a viewer-request snippet moves multipart uploads under /_container, a
 * route whose rewrite strips that prefix again before the request reaches the container. */

/** CloudFront Functions JavaScript, run before the Router's own path matching. */
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
  return new sst.aws.Router('Router', {
    routes: {
      '/*': apiUrl,
      '/assets/*': { url: containerUrl },
      '/tus': { url: containerUrl },
      '/tus/*': { url: containerUrl },
      '/_container/*': { url: containerUrl, rewrite: { regex: '^/_container/(.*)$', to: '/$1' } },
    },
    edge: { viewerRequest: { injection: MULTIPART_TO_CONTAINER } },
  });
}
