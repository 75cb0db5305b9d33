/** A real S3-protocol server (s3rver) on an ephemeral port with a fresh bucket directory, for the objectstore
 * driver and the tus S3 store. `down` stops it (its connections cut, the port no longer listening) and `up` starts
 * it again on the same port and directory: an object store outage and its end. */
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
  /** Stops the server: open connections are cut, new ones refused. The objects stay on disk. */
  down(): Promise<void>;
  /** Starts it again on the same port, with the objects it had. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'svc-test'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const start = async (port: number) => {
    const s = new S3rver({ port, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
    return { s, address: await s.run() as AddressInfo };
  };
  let { s: server, address } = await start(0);
  let running = true;
  const stop = async () => {
    if (!running) return;
    running = false;
    const closing = server.close();
    // Keep-alive and in-flight connections end now, as when the process dies.
    (server as unknown as { httpServer?: { closeAllConnections?: () => void } }).httpServer?.closeAllConnections?.();
    await closing;
  };
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    // s3rver accepts the well-known S3RVER credentials.
    config: { driver: 'objectstore', bucket, region: 'us-east-1', accessKey: 'S3RVER', secretKey: 'S3RVER', endpoint, forcePathStyle: true },
    down: stop,
    async up() {
      if (running) return;
      ({ s: server, address } = await start(address.port));
      running = true;
    },
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
