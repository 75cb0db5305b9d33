/** The `objectstore` driver: objects in an S3-API bucket (AWS S3, MinIO, s3rver ...). Writes stream through
 * a multipart upload (never buffered whole) that is aborted on failure, so no partial object remains. */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type ServerSideEncryption } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { NotFoundError } from '../errors.ts';
import type { ByteRange, StorageDriver, StoredObject } from './driver.ts';
import { assertStorageKey } from './keys.ts';

export interface ObjectstoreOptions {
  bucket: string;
  region: string;
  accessKey: string;
  secretKey: string;
  endpoint?: string;
  acl?: string;
  serverSideEncryption?: string;
  forcePathStyle?: boolean;
  /** Key prefix inside the bucket (several deployments in one bucket). */
  root?: string;
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/** Counts the bytes passing through, for the size the write resolves with. */
function counted(data: Readable): { body: Readable; bytes: () => number } {
  let n = 0;
  data.on('data', (chunk: Buffer) => { n += chunk.length; });
  return { body: data, bytes: () => n };
}

export class ObjectstoreDriver implements StorageDriver {
  readonly driver = 'objectstore' as const;
  readonly client: S3Client;
  readonly #opts: ObjectstoreOptions;
  readonly #prefix: string;

  constructor(opts: ObjectstoreOptions) {
    this.#opts = opts;
    this.#prefix = opts.root ? `${opts.root.replace(/^\/+|\/+$/g, '')}/` : '';
    this.client = new S3Client({
      region: opts.region,
      credentials: { accessKeyId: opts.accessKey, secretAccessKey: opts.secretKey },
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle ?? false,
    });
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
      const res = await this.client.send(new GetObjectCommand({
        Bucket: this.#opts.bucket, Key: this.objectKey(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }));
      return res.Body as Readable;
    } catch (err) {
      if (isMissing(err)) throw new NotFoundError();
      throw err;
    }
  }

  async write(key: string, data: Readable, type?: string): Promise<number> {
    const { body, bytes } = counted(data);
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.#opts.bucket,
        Key: this.objectKey(key),
        Body: body,
        ...(type ? { ContentType: type } : {}),
        ...(this.#opts.acl ? { ACL: this.#opts.acl as never } : {}),
        ...(this.#opts.serverSideEncryption ? { ServerSideEncryption: this.#opts.serverSideEncryption as ServerSideEncryption } : {}),
      },
      queueSize: 2,
      partSize: 5 * 1024 * 1024,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // A source stream that failed mid-way: make sure nothing half-written stays (single-part uploads are
      // atomic already; multipart ones are aborted by the Upload helper).
      await this.delete(key).catch(() => {});
      throw err;
    }
    return bytes();
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.#opts.bucket, Key: this.objectKey(key) }));
      return { size: Number(res.ContentLength ?? 0), modified: res.LastModified ?? new Date(0) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.#opts.bucket, Key: this.objectKey(key) }));
  }

  async *list(prefix: string): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const res = await this.client.send(new ListObjectsV2Command({
        Bucket: this.#opts.bucket, Prefix: this.#prefix + prefix, ContinuationToken: token,
      }));
      for (const o of res.Contents ?? []) if (o.Key) yield o.Key.slice(this.#prefix.length);
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }
}
