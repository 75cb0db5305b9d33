/** GET/HEAD /assets/{id}: the rules of SPEC.md > Assets, independent of HTTP framing. Finds the file (404 for
 * unknown or non-uuid ids, incomplete uploads, missing objects), checks the caller may read its row (403),
 * then answers the raw bytes (ranges, conditional requests) or a transform (rendered once into the storage
 * cache, then served from it). Bodies are streams from the storage driver, never buffered. */
import type { Readable } from 'node:stream';
import { authenticate } from '../auth/authenticate.ts';
import type { ServiceContext } from '../context.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import type { AccessPort, ConfigPort, DatabasePort, SchemaPort, StorePort } from '../ports.ts';
import type { StorageRegistry } from '../storage/registry.ts';
import type { StorageDriver, StoredObject } from '../storage/driver.ts';
import { canReadFile, isAnonymous, readVisibleFile } from './access.ts';
import { isActiveContent, safeContentType } from './active-content.ts';
import { contentDisposition } from './disposition.ts';
import { UnsatisfiableRangeError } from './errors.ts';
import { loadAssetFile, type AssetFile } from './file-row.ts';
import { isUuid } from '../uuid.ts';
import { isPublicProjectFile } from './public-files.ts';
import { assetSettings, resolveTransform } from './presets.ts';
import { parseRange } from './range.ts';
import { singleFlight } from './single-flight.ts';
import { renderTransform } from './transform.ts';
import { requestsTransform } from './transform-options.ts';
import { cacheKeyFor, isTransformable, OUTPUT_EXT, OUTPUT_TYPE, planTransform, type TransformPlan } from './transform-plan.ts';
import { notModified, rangeStillValid, strongEtag } from './validators.ts';

export interface AssetRequest {
  /** The path segment: a uuid, optionally followed by `.{ext}`. */
  id: string;
  query: Record<string, string | undefined>;
  head: boolean;
  headers: {
    range?: string | null;
    ifRange?: string | null;
    ifNoneMatch?: string | null;
    ifModifiedSince?: string | null;
    accept?: string | null;
  };
}

export interface AssetResponse {
  status: 200 | 206 | 304;
  headers: Record<string, string>;
  /** Null for HEAD and 304. */
  body: Readable | null;
}

async function loadReadable(ctx: ServiceContext, rawId: string): Promise<AssetFile> {
  const id = rawId.split('.')[0];
  if (!isUuid(id)) throw new NotFoundError();
  const visible = await readVisibleFile(ctx, id);
  if (visible?.filename_disk) return visible;
  // Missing (404) or there but not the caller's to read (403): only failures pay for telling them apart.
  const file = visible ?? await loadAssetFile(ctx.db, id);
  if (!file || !file.filename_disk) throw new NotFoundError();
  // The project's logo and the sign-in page's images are everyone's to see.
  if (await isPublicProjectFile(ctx.db, file.id)) return file;
  throw new ForbiddenError();
}

/** Whether the Public role may read the row too, from anywhere: only then may shared caches keep the
 * response. Public policies limited by ip_access don't count (a shared cache would hand the bytes to every
 * address), so the Public role is resolved without an address. */
async function publiclyReadable(services: AccessPort & ConfigPort & DatabasePort & SchemaPort & StorePort, ctx: ServiceContext, file: AssetFile): Promise<boolean> {
  const a = ctx.accountability;
  const everywhere = await authenticate(services, null, { ip: null, userAgent: a.userAgent, origin: a.origin }, ctx.schema.version);
  // An anonymous caller holding exactly the address-independent policies already proved it.
  if (isAnonymous(a) && a.policies.length === everywhere.policies.length && a.policies.every((p, i) => p === everywhere.policies[i])) return true;
  return await canReadFile({ ...ctx, accountability: everywhere }, file.id) || isPublicProjectFile(ctx.db, file.id);
}

function downloadName(file: AssetFile, plan: TransformPlan | null): string {
  if (!plan) return file.filename_download;
  const name = file.filename_download;
  const dot = name.lastIndexOf('.');
  return `${dot > 0 ? name.slice(0, dot) : name}.${OUTPUT_EXT[plan.format]}`;
}

function baseHeaders(services: ConfigPort, file: AssetFile, req: AssetRequest, type: string, isPublic: boolean, plan: TransformPlan | null): Record<string, string> {
  const maxAge = Math.floor(services.config.files.assetsCacheTtlMs / 1000);
  const headers: Record<string, string> = {
    'content-type': type,
    'content-disposition': contentDisposition(downloadName(file, plan), req.query.download !== undefined ? 'attachment' : 'inline'),
    'cache-control': `${isPublic ? 'public' : 'private'}, max-age=${maxAge}`,
    'x-content-type-options': 'nosniff',
  };
  if (isActiveContent(type)) headers['content-security-policy'] = 'sandbox';
  return headers;
}

function validators(headers: Record<string, string>, etag: string, lastModified: Date): void {
  headers.etag = etag;
  headers['last-modified'] = lastModified.toUTCString();
}

async function serveRaw(driver: StorageDriver, file: AssetFile, req: AssetRequest, headers: Record<string, string>): Promise<AssetResponse> {
  const key = file.filename_disk!;
  const stored = await driver.stat(key);
  if (!stored) throw new NotFoundError();
  const size = stored.size;
  const etag = strongEtag(file.id, size, file.modified_on.getTime(), stored.modified.getTime());
  validators(headers, etag, file.modified_on);
  if (notModified(req.headers, etag, file.modified_on)) return { status: 304, headers, body: null };
  headers['accept-ranges'] = 'bytes';
  const wanted = rangeStillValid(req.headers.ifRange, etag, file.modified_on) ? parseRange(req.headers.range, size) : { kind: 'full' as const };
  if (wanted.kind === 'unsatisfiable') throw new UnsatisfiableRangeError(size);
  if (wanted.kind === 'partial') {
    const { start, end } = wanted.range;
    headers['content-range'] = `bytes ${start}-${end}/${size}`;
    headers['content-length'] = String(end - start + 1);
    return { status: 206, headers, body: req.head ? null : await driver.read(key, wanted.range) };
  }
  headers['content-length'] = String(size);
  return { status: 200, headers, body: req.head || size === 0 ? null : await driver.read(key) };
}

/** A cached output is current when it was written after the file's last change (a replaced original makes
 * older outputs stale). */
function current(cached: StoredObject | null, file: AssetFile): cached is StoredObject {
  return cached !== null && cached.modified.getTime() >= file.modified_on.getTime() - 1000;
}

async function serveTransformed(services: ConfigPort, driver: StorageDriver, file: AssetFile, req: AssetRequest, plan: TransformPlan, headers: Record<string, string>): Promise<AssetResponse> {
  const key = cacheKeyFor(file.filename_disk!, plan);
  let cached = await driver.stat(key);
  if (!current(cached, file)) {
    const files = services.config.files;
    // A request that saw no output may reach the flight just after another finished rendering it: the flight
    // looks again before it renders, so a cold miss never renders twice in a process.
    await singleFlight(`${file.storage}\u0000${key}`, async () => current(await driver.stat(key), file) ? undefined : renderTransform({
      // A missing original is NOT_FOUND from the driver.
      open: () => driver.read(file.filename_disk!),
      plan,
      driver,
      cacheKey: key,
      limits: {
        maxDimension: files.assetsTransformImageMaxDimension,
        maxConcurrent: files.assetsTransformMaxConcurrent,
        timeoutMs: files.assetsTransformTimeoutMs,
        failOn: files.assetsInvalidImageSensitivityLevel,
      },
    }));
    cached = await driver.stat(key);
    if (!cached) throw new NotFoundError();
  }
  const etag = strongEtag(key, cached.size, cached.modified.getTime());
  validators(headers, etag, cached.modified);
  if (notModified(req.headers, etag, cached.modified)) return { status: 304, headers, body: null };
  headers['content-length'] = String(cached.size);
  return { status: 200, headers, body: req.head ? null : await driver.read(key) };
}

export async function serveAsset(services: AccessPort & ConfigPort & DatabasePort & SchemaPort & StorePort & { storage: StorageRegistry }, ctx: ServiceContext, req: AssetRequest): Promise<AssetResponse> {
  const file = await loadReadable(ctx, req.id);
  const transformable = isTransformable(file.type) && requestsTransform(req.query);
  let plan: TransformPlan | null = null;
  let negotiated = false;
  if (transformable) {
    const options = resolveTransform(req.query, await assetSettings(ctx.db, ctx.schema), services.config.files.assetsTransformImageMaxDimension);
    // An empty transform (e.g. `transforms=[]`) is the original.
    if (Object.keys(options).length) plan = planTransform(options, file, req.headers.accept);
    negotiated = options.format === 'auto';
  }
  const isPublic = await publiclyReadable(services, ctx, file);
  const driver = (await services.storage.providers(ctx.schema.version)).get(file.storage);
  if (!plan) return serveRaw(driver, file, req, baseHeaders(services, file, req, safeContentType(file.type), isPublic, null));
  const headers = baseHeaders(services, file, req, OUTPUT_TYPE[plan.format], isPublic, plan);
  if (negotiated) headers.vary = 'Accept';
  return serveTransformed(services, driver, file, req, plan, headers);
}
