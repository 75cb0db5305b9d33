/** The Studio in the cloud: studio/dist (`npm run build:studio`, Vite `base: '/admin/'`) as an SST StaticSite, its
 * files in an S3 bucket of its own, served through the Router's CloudFront distribution at /admin (the standalone
 * process and the container serve the same build themselves: container/studio.ts).
 *
 * What SST (v3.19 and v4.17, platform/src/components/aws/static-site.ts and router.ts) does with a site under a
 * Router path, and what that means here:
 * - the files are uploaded under the key prefix `admin/`, and the site registers `site,<ns>,,/admin` in the Router's
 *   KeyValueStore; the Router's viewer-request function (after our own injection, infra/router.ts) picks the longest
 *   matching prefix, so /admin and /admin/... go to the bucket and everything else keeps its route.
 * - the routing function (`routeSite`) tries, for a path under /admin, the file itself, `.html` and `/index.html`
 *   (/admin and /admin/ are index.html), then the build's top-level folders (/admin/assets/...: the object, or
 *   S3's 403 for a chunk that no longer exists, as the container's 404), and otherwise rewrites the request to the
 *   site's `custom404`, which is the index page (index.html) when `errorPage` is NOT set: the SPA fallback, a deep link
 *   such as /admin/content/posts/12 answers index.html with 200. Since SST v4.2.2 (#6542) setting `errorPage` turns
 *   that into a 404 page instead (and under a Router, whose distribution has no custom error responses, into S3's
 *   raw 403), so `errorPage` must stay unset; v3 used `errorPage ?? indexPage` for the same fallback.
 * - SST's default `fileOptions` would mark every non-HTML file immutable for a year and upload everything in the
 *   output, so they are given explicitly (studioFileOptions): the same Cache-Control as container/studio.ts, and the
 *   precompressed copies and the build stamp left out.
 * - the default invalidation after a deploy is `/*` on the Router's distribution, which would also drop the edge
 *   cache of /assets (the container's transformed images): only /admin* is invalidated.
 * - CloudFront adds no security headers: the Router's viewer-response function adds them (STUDIO_RESPONSE_HEADERS).
 * - a site under a Router may set neither `domain` nor `edge` (SST refuses both; they belong to the Router). */
import { parsePreviewOrigins, studioSecurityHeaders } from '../container/studio-headers.ts';

/** The Router path of the Studio; the Vite `base` of studio/vite.config.ts is this plus '/'. */
export const STUDIO_PATH = '/admin';

/** Run by SST at every deploy (from the project root) before the upload; needs the dev dependencies (Vite). */
export const STUDIO_BUILD = { command: 'npm run build:studio', output: 'studio/dist' } as const;

/** As container/studio.ts: hashed assets (assets/<name>-<hash>.js) never change under their name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** As container/studio.ts: index.html (and any other unhashed file) is revalidated at every load, so a deploy is
 * picked up at once; CloudFront does not keep a no-cache object at the edge (the router's minTtl is 0). */
export const REVALIDATE = 'no-cache';

/** In studio/dist but not for the bucket: the gzip and brotli copies scripts/build-studio.mjs writes for the
 * container (CloudFront compresses by itself), and the build stamp. */
export const NOT_UPLOADED = ['**/*.gz', '**/*.br', '.built'];

/** SST `assets.fileOptions` (globs relative to the build output; SST matches with `dot: true`, applies the last
 * option first and a file only once). Disjoint, so their order does not matter; a file that no option takes is not
 * uploaded. A new array each call: SST reverses the list in place. */
export function studioFileOptions() {
  return [
    { files: 'assets/**', ignore: [...NOT_UPLOADED], cacheControl: IMMUTABLE },
    { files: '**', ignore: ['assets/**', ...NOT_UPLOADED], cacheControl: REVALIDATE },
  ];
}

/** The header names as CloudFront Functions spell them in `event.response.headers` (lower case). The websites live
 * preview may frame are the deploying shell's STUDIO_PREVIEW_ORIGINS, as the container reads them at its start. */
const EDGE_HEADERS = Object.fromEntries(Object.entries(studioSecurityHeaders(parsePreviewOrigins(process.env.STUDIO_PREVIEW_ORIGINS)))
  .map(([name, value]) => [name.toLowerCase(), value]));

/** CloudFront Functions JavaScript for the Router's viewer-response function (SST wraps it in
 * `async function handler(event) { <injection> return event.response; }`, one function for every path of the
 * distribution). Adds the Studio's CSP, X-Content-Type-Options and Referrer-Policy to answers under /admin only.
 * Whether `event.request.uri` there is the viewer's or the one rewritten by the viewer-request function, the test
 * is the same: the rewrites keep /admin paths under /admin (index.html fallback) and move nothing else there.
 * ES5, like MULTIPART_TO_CONTAINER. */
export const STUDIO_RESPONSE_HEADERS = `
var studioUri = event.request.uri;
if (studioUri === '${STUDIO_PATH}' || studioUri.indexOf('${STUDIO_PATH}/') === 0) {
  var studioHeaders = ${JSON.stringify(EDGE_HEADERS)};
  for (var studioHeader in studioHeaders) event.response.headers[studioHeader] = { value: studioHeaders[studioHeader] };
}
`;

export function createStudio(router: sst.aws.Router) {
  return new sst.aws.StaticSite('Studio', {
    // The project root, where `npm run build:studio` runs; not studio/: SST writes src/sst-env.d.ts into a site path
    // that holds a vite.config.ts.
    path: '.',
    build: STUDIO_BUILD,
    router: { instance: router, path: STUDIO_PATH },
    // No errorPage and the default indexPage (index.html): the SPA fallback described above.
    assets: { fileOptions: studioFileOptions() },
    invalidation: { paths: [`${STUDIO_PATH}*`], wait: false },
    // `sst dev` would otherwise run `npm run dev` (the API server) in place of the site: deploy it as in `sst deploy`.
    dev: false,
  });
}
