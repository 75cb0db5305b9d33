/** The objectstore driver without accessKey/secretKey: the AWS SDK's default credential chain signs its requests,
 * as deployed (an ECS task role, a Lambda execution role). Here the chain's environment source,
 * AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, carries the credentials of a real S3-protocol server (s3rver), which
 * checks the access key id of every request (it does not recompute V4 signatures): an unknown one from the
 * environment is refused, and with no source at all the driver fails
 * with a clear 503 instead of the SDK's generic error. The other sources of the chain are pointed at nothing
 * (no shared files, no container or web-identity variables, instance metadata off: nothing leaves this machine). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../core/errors.ts';
import { ObjectstoreDriver } from '../../core/storage/objectstore.ts';
import { validateProviderConfig } from '../../core/storage/provider-config.ts';
import { driverFor } from '../../core/storage/registry.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';

const CHAIN_VARIABLES = [
  'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION', 'AWS_PROFILE',
  'AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE', 'AWS_EC2_METADATA_DISABLED', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_AUTHORIZATION_TOKEN', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_ROLE_ARN',
];
const saved = new Map(CHAIN_VARIABLES.map((k) => [k, process.env[k]]));

let s3: TestS3;
let home: string;

function setChain(credentials: { id: string; secret: string } | null): void {
  for (const k of CHAIN_VARIABLES) delete process.env[k];
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(home, 'credentials');
  process.env.AWS_CONFIG_FILE = join(home, 'config');
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  if (credentials) {
    process.env.AWS_ACCESS_KEY_ID = credentials.id;
    process.env.AWS_SECRET_ACCESS_KEY = credentials.secret;
  }
}

/** A provider as an admin would record it for a deployment with roles: no keys. */
function keyless(): ObjectstoreDriver {
  const { accessKey: _a, secretKey: _s, ...rest } = s3.config;
  const config = validateProviderConfig({ ...rest, root: 'env' }, '/unused');
  expect(config).not.toHaveProperty('accessKey');
  return driverFor(config) as ObjectstoreDriver;
}

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'svc-aws-home-'));
  s3 = await startS3('svc-role');
});
afterEach(() => {
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
afterAll(async () => {
  await s3?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('objectstore driver without static keys', () => {
  it('signs with the credentials of the environment (the default chain): write, stat, read, list, delete', async () => {
    setChain({ id: 'S3RVER', secret: 'S3RVER' });
    const d = keyless();
    expect(d.clientConfig).not.toHaveProperty('credentials');
    expect(await d.write('a.txt', Readable.from([Buffer.from('signed by the chain')]), 'text/plain')).toBe(19);
    expect((await d.stat('a.txt'))?.size).toBe(19);
    expect(await text(await d.read('a.txt'))).toBe('signed by the chain');
    const keys: string[] = [];
    for await (const k of d.list('')) keys.push(k);
    expect(keys).toEqual(['a.txt']);
    await d.delete('a.txt');
    expect(await d.stat('a.txt')).toBeNull();
  });

  it('really uses them: an access key id the server does not know is refused', async () => {
    setChain({ id: 'NOBODY', secret: 'S3RVER' });
    const d = keyless();
    for (const op of [() => d.write('b.txt', Readable.from([Buffer.from('x')])), () => d.stat('b.txt')]) {
      const err = await op().then(() => null, (e: unknown) => e) as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
      expect(err?.$metadata?.httpStatusCode).toBe(403);
    }
    const err = await d.read('b.txt').then(() => null, (e: unknown) => e) as { name?: string } | null;
    expect(err?.name).toBe('InvalidAccessKeyId');
  });

  it('keys in the configuration still win over the environment', async () => {
    setChain({ id: 'NOBODY', secret: 'nothing' });
    const d = driverFor(validateProviderConfig({ ...s3.config, root: 'env' }, '/unused')) as ObjectstoreDriver;
    await d.write('c.txt', Readable.from([Buffer.from('static')]));
    expect(await text(await d.read('c.txt'))).toBe('static');
    await d.delete('c.txt');
  });

  it('with no credentials anywhere: a clear 503 naming what to set, on every operation', async () => {
    setChain(null);
    const d = keyless();
    for (const op of [
      () => d.write('d.txt', Readable.from([Buffer.from('x')])),
      () => d.read('d.txt'),
      () => d.stat('d.txt'),
      async () => { for await (const _ of d.list('')) { /* nothing */ } },
    ]) {
      const err = await op().then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).status).toBe(503);
      expect((err as Error).message).toMatch(/bucket "svc-role" has no credentials: set its accessKey and secretKey, or give the process AWS credentials \(AWS_ACCESS_KEY_ID/);
    }
  });
});
