/** The `objectstore` driver: objects in an S3-API bucket (AWS S3, MinIO, s3rver ...). Writes stream through
 * a multipart upload (never buffered whole) that is aborted on failure, so no partial object remains.
 *
 * Credentials: `accessKey` + `secretKey` when the provider record has them; without them the AWS SDK's default chain
 * (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a shared profile, the ECS task role, the Lambda execution role, EC2
 * instance metadata), as infra/ deploys it. The SDK (client-s3, lib-storage) is imported on the first operation, not
 * with this module: a process that never touches an objectstore (a Lambda cold start) does not load it.
 *
 * An unreachable store is bounded in time and answered as such (core/storage/unavailable.ts): a connection within
 * OBJECTSTORE_CONNECT_TIMEOUT_MS, the headers of an answer within OBJECTSTORE_ANSWER_TIMEOUT_MS (reads, stats,
 * deletes, lists; the body of a read then streams at the reader's pace), a part sent and answered within
 * OBJECTSTORE_TRANSFER_TIMEOUT_MS, one retry; then 503 SERVICE_UNAVAILABLE instead of a 500 or a hang. */
import type { S3Client, S3ClientConfig, ServerSideEncryption } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { NotFoundError, ServiceUnavailableError } from '../errors.ts';
import type { ByteRange, StorageDriver, StoredObject } from './driver.ts';
import { assertStorageKey } from './keys.ts';
import { OBJECTSTORE_ANSWER_TIMEOUT_MS, OBJECTSTORE_MAX_ATTEMPTS, objectstoreRequestHandler, objectstoreUnavailable } from './unavailable.ts';

/** The parts of a multipart write (S3's minimum). */
const PART_SIZE = 5 * 1024 * 1024;
/** Per call options of the calls without a request body: their answer is due sooner than a transfer's. */
const ANSWER = { requestTimeout: OBJECTSTORE_ANSWER_TIMEOUT_MS };

export interface ObjectstoreOptions {
  bucket: string;
  region: string;
  /** With `secretKey`; both absent: the AWS default credential chain. */
  accessKey?: string;
  secretKey?: string;
  endpoint?: string;
  acl?: string;
  serverSideEncryption?: string;
  forcePathStyle?: boolean;
  /** Key prefix inside the bucket (several deployments in one bucket). */
  root?: string;
}

type S3Sdk = typeof import('@aws-sdk/client-s3');
type Storage = typeof import('@aws-sdk/lib-storage');

let sdk: Promise<{ s3: S3Sdk; storage: Storage }> | null = null;

/** The SDK modules, imported once per process on first use. */
function loadSdk(): Promise<{ s3: S3Sdk; storage: Storage }> {
  sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({ s3, storage }));
  sdk.catch(() => { sdk = null; });
  return sdk;
}

/** What the default chain throws when it found nothing: said plainly, with what to set. */
function credentialsMissing(err: unknown, bucket: string): unknown {
  if ((err as { name?: string })?.name !== 'CredentialsProviderError') return err;
  return new ServiceUnavailableError(
    `The objectstore provider for bucket "${bucket}" has no credentials: set its accessKey and secretKey, or give the `
    + 'process AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a shared profile, an ECS task role or a '
    + 'Lambda execution role).',
    (err as Error).message,
  );
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Counts the bytes passing through, for the size the write resolves with; notes whether the source failed (its
 * error is then the request's, not the store's). */
function counted(data: Readable): { body: Readable; bytes: () => number; failed: () => boolean } {
  let n = 0;
  let failed = false;
  data.on('data', (chunk: Buffer) => { n += chunk.length; });
  data.once('error', () => { failed = true; });
  return { body: data, bytes: () => n, failed: () => failed };
}

export class ObjectstoreDriver implements StorageDriver {
  readonly driver = 'objectstore' as const;
  /** The S3 client settings of this provider (the tus S3 store builds its own client from them). Without
   * `credentials` the SDK resolves them through its default chain. */
  readonly clientConfig: S3ClientConfig;
  readonly #opts: ObjectstoreOptions;
  readonly #prefix: string;
  #client: Promise<S3Client> | null = null;

  constructor(opts: ObjectstoreOptions) {
    this.#opts = opts;
    this.#prefix = opts.root ? `${opts.root.replace(/^\/+|\/+$/g, '')}/` : '';
    this.clientConfig = {
      region: opts.region,
      ...(opts.accessKey && opts.secretKey ? { credentials: { accessKeyId: opts.accessKey, secretAccessKey: opts.secretKey } } : {}),
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle ?? false,
      requestHandler: objectstoreRequestHandler(PART_SIZE),
      maxAttempts: OBJECTSTORE_MAX_ATTEMPTS,
    };
  }

  /** The provider's client, created on first use. */
  client(): Promise<S3Client> {
    this.#client ??= loadSdk().then(({ s3 }) => new s3.S3Client(this.clientConfig));
    this.#client.catch(() => { this.#client = null; });
    return this.#client;
  }

  /** Runs a call on the client with the SDK's commands at hand (both loaded on first use). */
  async #run<T>(call: (client: S3Client, s3: S3Sdk) => Promise<T>): Promise<T> {
    const [client, { s3 }] = await Promise.all([this.client(), loadSdk()]);
    try {
      return await call(client, s3);
    } catch (err) {
      throw objectstoreUnavailable(credentialsMissing(err, this.#opts.bucket), this.#opts.bucket);
    }
  }

  /** The object key in the bucket for a storage key. */
  objectKey(key: string): string {
    return this.#prefix + assertStorageKey(key);
  }

  get bucket(): string {
    return this.#opts.bucket;
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const res = await this.#run((client, s3) => client.send(new s3.GetObjectCommand({
        Bucket: this.#opts.bucket, Key: this.objectKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }), ANSWER));
      return res.Body as Readable;
    } catch (err) {
      if (isMissing(err)) throw new NotFoundError();
      throw err;
    }
  }

  async write(key: string, data: Readable, type?: string): Promise<number> {
    const [client, { storage }] = await Promise.all([this.client(), loadSdk()]);
    // Counting starts the flow of `data`: only once the upload is there to read it.
    const { body, bytes, failed } = counted(data);
    const upload = new storage.Upload({
      client,
      params: {
        Bucket: this.#opts.bucket,
        Key: this.objectKey(key),
        Body: body,
        ...(type ? { ContentType: type } : {}),
        ...(this.#opts.acl ? { ACL: this.#opts.acl as never } : {}),
        ...(this.#opts.serverSideEncryption ? { ServerSideEncryption: this.#opts.serverSideEncryption as ServerSideEncryption } : {}),
      },
      queueSize: 2,
      partSize: PART_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // A source stream that failed mid-way: make sure nothing half-written stays (single-part uploads are
      // atomic already; multipart ones are aborted by the Upload helper).
      await this.delete(key).catch(() => {});
      const reported = credentialsMissing(err, this.#opts.bucket);
      throw failed() ? reported : objectstoreUnavailable(reported, this.#opts.bucket, true);
    }
    return bytes();
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const res = await this.#run((client, s3) => client.send(new s3.HeadObjectCommand({ Bucket: this.#opts.bucket, Key: this.objectKey(key) }), ANSWER));
      return { size: Number(res.ContentLength ?? 0), modified: res.LastModified ?? new Date(0) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.#run((client, s3) => client.send(new s3.DeleteObjectCommand({ Bucket: this.#opts.bucket, Key: this.objectKey(key) }), ANSWER));
  }

  async *list(prefix: string): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const res = await this.#run((client, s3) => client.send(new s3.ListObjectsV2Command({
        Bucket: this.#opts.bucket, Prefix: this.#prefix + prefix, ContinuationToken: token,
      }), ANSWER));
      for (const o of res.Contents ?? []) if (o.Key) yield o.Key.slice(this.#prefix.length);
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }
}
