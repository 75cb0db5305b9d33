/** The tus S3 store (@tus/s3-store) on an objectstore provider's bucket and credentials, with one change: the list
 * of uploaded parts (PartNumber, ETag, Size) is recorded durably by us (in the upload's svc_files row) instead of
 * being asked from S3 with ListParts on every PATCH and HEAD. Every S3-compatible server then works, including
 * ones without ListParts (s3rver, some gateways), and the offset survives restarts like the row does. A part
 * uploaded but not recorded (a crash in between) is simply sent again under the same part number.
 * Staging objects are `{id}`, `{id}.info` and `{id}.part` at the bucket root (the S3 store has no key prefix);
 * completion copies the bytes to the file's key and removes them.
 *
 * A bucket that cannot be reached answers SERVICE_UNAVAILABLE (503, core/storage/unavailable.ts) from every
 * operation, with the client's timeouts of the objectstore provider: the offset recorded so far stays as it is, so
 * the client resumes once the store is back. */
import { S3 } from '@aws-sdk/client-s3';
import { S3Store, type MetadataValue } from '@tus/s3-store';
import { stat } from 'node:fs/promises';
import type { ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Upload } from '@tus/utils';
import type { ObjectstoreDriver } from '../storage/objectstore.ts';
import { isObjectstoreUnreachable, objectstoreRequestHandler, objectstoreUnavailable } from '../storage/unavailable.ts';

export interface UploadedPart { PartNumber: number; ETag: string; Size: number }

export interface PartLog {
  append(uploadId: string, part: UploadedPart): Promise<void>;
  list(uploadId: string): Promise<UploadedPart[]>;
}

export class RecordedPartsS3Store extends S3Store {
  constructor(driver: ObjectstoreDriver, private readonly parts: PartLog, partSize: number) {
    super({ partSize, s3ClientConfig: { bucket: driver.bucket, region: 'us-east-1' } });
    // The provider's own client settings (endpoint, region, credentials or the default chain, path style). Checksums only where S3
    // requires them: parts and the tail object are streams of known size, and the SDK's default for streams
    // (aws-chunked bodies with checksum trailers) is not understood by every S3-compatible server.
    this.client = new S3({
      ...driver.clientConfig,
      // A part of TUS_CHUNK_SIZE may take longer to send than the driver's 5 MB ones.
      requestHandler: objectstoreRequestHandler(partSize),
      requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Runs an operation of the S3 store; an unreachable bucket is SERVICE_UNAVAILABLE. */
  async #reaching<T>(operation: () => Promise<T>, writing = false): Promise<T> {
    try {
      return await operation();
    } catch (err) {
      throw objectstoreUnavailable(err, this.bucket, writing);
    }
  }

  override create(upload: Upload): Promise<Upload> {
    return this.#reaching(() => super.create(upload), true);
  }

  override write(src: Readable, id: string, offset: number): Promise<number> {
    return this.#reaching(() => super.write(src, id, offset), true);
  }

  override getUpload(id: string): Promise<Upload> {
    return this.#reaching(async () => {
      // The S3 store answers any failure to read the upload's info object as a missing upload (404), which would
      // make a client start over: an unreachable bucket must read as unavailable instead.
      try {
        await this.getMetadata(id);
      } catch (err) {
        if (isObjectstoreUnreachable(err)) throw err;
      }
      return super.getUpload(id);
    });
  }

  override declareUploadLength(id: string, length: number): Promise<void> {
    return this.#reaching(() => super.declareUploadLength(id, length));
  }

  override read(id: string): Promise<Readable> {
    return this.#reaching(async () => (await super.read(id)) as Readable);
  }

  protected override async uploadPart(metadata: MetadataValue, readStream: ReadStream | Readable | Buffer, partNumber: number): Promise<string> {
    const size = Buffer.isBuffer(readStream) ? readStream.length : (await stat(String((readStream as ReadStream).path))).size;
    const etag = await super.uploadPart(metadata, readStream, partNumber);
    await this.parts.append(metadata.file.id, { PartNumber: partNumber, ETag: etag, Size: size });
    return etag;
  }

  protected override async retrieveParts(id: string): Promise<Array<{ PartNumber: number; ETag: string; Size: number }>> {
    const byNumber = new Map<number, UploadedPart>();
    for (const part of await this.parts.list(id)) byNumber.set(part.PartNumber, part);
    return [...byNumber.values()].sort((a, b) => a.PartNumber - b.PartNumber);
  }

  /** Termination, expiry and the end of a completed upload: abort the multipart upload when one is still open
   * (best effort: a completed one has none, and servers without AbortMultipartUpload leave it to the bucket's
   * AbortIncompleteMultipartUpload lifecycle rule), then delete the staging objects. */
  override remove(id: string): Promise<void> {
    return this.#reaching(() => this.#remove(id));
  }

  async #remove(id: string): Promise<void> {
    const meta = await this.getMetadata(id).catch(() => null);
    if (meta?.['upload-id']) {
      await this.client.abortMultipartUpload({ Bucket: this.bucket, Key: id, UploadId: meta['upload-id'] }).catch(() => {});
    }
    await this.client.deleteObjects({
      Bucket: this.bucket,
      Delete: { Objects: [{ Key: id }, { Key: this.infoKey(id) }, { Key: this.partKey(id, true) }], Quiet: true },
    });
    await this.clearCache(id);
  }
}
