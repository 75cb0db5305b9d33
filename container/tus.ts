/** The tus 1.0.0 endpoint (SPEC.md > Files and resumable upload): POST /tus, PATCH|HEAD|DELETE /tus/{id}, served by
 * @tus/server's Fetch API handler. Staging is core/tus/staging.ts, the rules (permissions, rows, completion, expiry)
 * core/tus/uploads.ts, the cleanup job core/tus/cleanup.ts; locks live in Redis when REDIS_URL is set. Every request
 * but OPTIONS needs an authenticated caller. */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Context, Hono } from 'hono';
import type { FileStore } from '@tus/file-store';
import { MemoryLocker, Server } from '@tus/server';
import type { Locker } from '@tus/utils';
import { assertAuthenticated } from '../core/access/authenticated.ts';
import type { ServiceContext } from '../core/context.ts';
import { NotFoundError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { RedisStore } from '../core/store/redis-store.ts';
import { RedisLocker } from '../core/tus/redis-locker.ts';
import { tusStaging } from '../core/tus/staging.ts';
import type { ProviderStores } from '../core/tus/stores.ts';
import {
  abandonUpload, beginUpload, completeUpload, requireUpload, touchUpload, type UploadRow,
} from '../core/tus/uploads.ts';
import { errorResponse } from '../functions/http/errors.ts';
import { serviceContext } from '../functions/http/context.ts';
import type { AppEnv } from '../functions/http/env.ts';
import { isUuid } from '../core/uuid.ts';

export const TUS_VERSION = '1.0.0';

interface RequestState {
  ctx: ServiceContext;
  /** The upload row a PATCH/HEAD/DELETE is about (checked before the tus handler takes the lock). */
  row?: UploadRow;
  /** An error of ours (or an unexpected one) to answer in the error envelope. */
  error?: unknown;
}

export interface TusRuntime {
  server: Server;
  store: ProviderStores;
  staging: FileStore;
  directory: string;
  locker: Locker;
  close(): Promise<void>;
}

const runtimes = new WeakMap<Services, TusRuntime>();
const requests = new WeakMap<Request, RequestState>();
/** Marker for onResponseError: the real answer is built from RequestState.error. */
const DEFERRED = { status_code: 599, body: '' };

export function tusRuntime(services: Services): TusRuntime {
  let rt = runtimes.get(services);
  if (!rt) {
    rt = createRuntime(services);
    runtimes.set(services, rt);
  }
  return rt;
}

function createRuntime(services: Services): TusRuntime {
  const cfg = services.config;
  const { directory, staging, store } = tusStaging(services);
  const shared = services.store;
  const locker: Locker = shared instanceof RedisStore
    ? new RedisLocker(shared.client, { prefix: cfg.redisNamespace ? `svc:${cfg.redisNamespace}:` : 'svc:' })
    : new MemoryLocker();
  const publicUrl = cfg.publicUrl.replace(/\/+$/, '');
  const server = new Server({
    path: '/tus',
    datastore: store,
    locker,
    maxSize: cfg.files.maxUploadSize,
    // A request that wants the lock gets it after the holder has had this long to finish its write.
    lockDrainTimeout: 1000,
    generateUrl: (_req, { id }) => `${publicUrl}/tus/${id}`,
    // The tus id is the file's id: a replacement (metadata `id`) continues under the existing file's id.
    namingFunction: (_req, metadata) => {
      const id = metadata?.id;
      return isUuid(id) ? id.toLowerCase() : randomUUID();
    },
    onIncomingRequest: async (req, id) => {
      const state = requests.get(req)!;
      if (req.method === 'POST') return;
      state.row = await requireUpload(services.database.db, state.ctx.accountability, id, cfg.files.tusUploadExpirationMs);
      if (req.method === 'PATCH') await touchUpload(services.database.db, id);
    },
    onUploadCreate: async (req, upload) => {
      const state = requests.get(req)!;
      await beginUpload(services, state.ctx, upload.id, upload.size ?? Number.NaN, upload.metadata ?? {});
      return {};
    },
    onUploadFinish: async (_req, upload) => {
      // Resolved before completion: the row stops naming an upload once it is complete.
      const staged = await store.storeOf(upload.id);
      await completeUpload(services, upload.id, async () => (await staged.read(upload.id)) as Readable,
        () => staged.remove(upload.id).catch(() => {}));
      // The staged copy goes once the row is complete (a failure here leaves it to the orphan sweep / the bucket).
      await staged.remove(upload.id).catch(() => {});
      return {};
    },
    onResponseError: (req, err) => {
      if (err instanceof Error && !('status_code' in err)) {
        const state = requests.get(req);
        if (state) state.error = err;
        return DEFERRED;
      }
      return undefined;
    },
  });
  return {
    server,
    store,
    staging,
    directory,
    locker,
    async close() {
      if (locker instanceof RedisLocker) await locker.close();
    },
  };
}

async function handle(c: Context<AppEnv>): Promise<Response> {
  const services = c.get('services');
  const req = c.req.raw;
  const method = req.method;
  if (method === 'GET') throw new NotFoundError();
  if (method !== 'OPTIONS') {
    assertAuthenticated(c.get('accountability'));
    if (req.headers.get('tus-resumable') !== TUS_VERSION) {
      return new Response('Unsupported tus version\n', { status: 412, headers: { 'Tus-Resumable': TUS_VERSION, 'Tus-Version': TUS_VERSION } });
    }
  }
  const rt = tusRuntime(services);
  const state: RequestState = { ctx: await serviceContext(c) };
  requests.set(req, state);
  let res = await rt.server.handleWeb(req);
  const id = state.row?.tus_id;
  if (id && method === 'PATCH') await touchUpload(services.database.db, id).catch(() => {});
  if (id && method === 'DELETE' && res.status === 204 && state.row) await abandonUpload(services.database.db, state.row);
  if (res.status === DEFERRED.status_code || state.error) {
    const envelope = errorResponse(c, state.error, services.config);
    const headers = new Headers(envelope.headers);
    for (const h of ['Tus-Resumable', 'Access-Control-Allow-Origin', 'Access-Control-Expose-Headers']) {
      const v = res.headers.get(h);
      if (v) headers.set(h, v);
    }
    res = new Response(envelope.body, { status: envelope.status, headers });
  } else if (res.status === 413) {
    // Upload-Length (or a chunk) over FILES_MAX_UPLOAD_SIZE: SPEC's CONTENT_TOO_LARGE in the envelope.
    const headers = new Headers(res.headers);
    headers.set('content-type', 'application/json; charset=utf-8');
    headers.delete('content-length');
    const body = JSON.stringify({ errors: [{ message: 'Upload exceeds FILES_MAX_UPLOAD_SIZE.', extensions: { code: 'CONTENT_TOO_LARGE' } }] });
    res = new Response(body, { status: 413, headers });
  }
  return res;
}

export function mountTusRoutes(app: Hono<AppEnv>): void {
  // Hono answers HEAD through GET routes; the handler tells them apart by the raw method.
  app.on(['POST', 'OPTIONS'], '/tus', handle);
  app.on(['GET', 'PATCH', 'DELETE', 'OPTIONS'], '/tus/:id', handle);
}
