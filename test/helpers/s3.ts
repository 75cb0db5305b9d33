/** A real S3-protocol server (s3rver) on an ephemeral port with a fresh bucket directory, for the objectstore
 * driver and the tus S3 store. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** Driver configuration for the objectstore driver / a storage provider record. */
  config: { driver: 'objectstore'; bucket: string; region: string; accessKey: string; secretKey: string; endpoint: string; forcePathStyle: true };
  close(): Promise<void>;
}

export async function startS3(bucket = 'svc-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const address = await server.run() as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    // s3rver accepts the well-known S3RVER credentials.
    config: { driver: 'objectstore', bucket, region: 'us-east-1', accessKey: 'S3RVER', secretKey: 'S3RVER', endpoint, forcePathStyle: true },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
