/** /system/storage-providers (SPEC.md > Storage providers): admin CRUD, secrets encrypted at rest and masked,
 * the mask keeps the stored value, validation, reload in every process, and a real objectstore provider. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { decryptSecret } from '../../core/crypto/secret-box.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { testEnv } from '../helpers/template.ts';
import { secondInstance, type SecondInstance } from '../schema/helpers.ts';

let t: TestApp & { database: Awaited<ReturnType<typeof createTestApp>>['database'] };
let other: SecondInstance;
let s3: TestS3;
let root: string;
const code = (res: { body: any }) => res.body?.errors?.[0]?.extensions?.code;
const base = '/system/storage-providers';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-providers-'));
  s3 = await startS3();
  t = await createTestApp({ env: { STORAGE_LOCAL_ROOT: root } });
  other = await secondInstance(t);
  await createPrincipal(t.services, { token: 'not-admin', permissions: [], appAccess: true });
});
afterAll(async () => {
  await other.close();
  await t.close();
  await s3.close();
  rmSync(root, { recursive: true, force: true });
});

async function storedValue(name: string): Promise<Record<string, unknown>> {
  const [row] = await run<{ value: unknown }>(t.services.database.db, "select value from svc_extension_settings where extension_key = 'system_storage_provider' and name = $1", [name]);
  return (typeof row.value === 'string' ? JSON.parse(row.value) : row.value) as Record<string, unknown>;
}

describe('storage providers', () => {
  it('starts with the built-in local driver only', async () => {
    expect((await t.req('GET', base)).body).toEqual({ data: [] });
    expect((await t.req('GET', '/files/storage-locations')).body).toEqual({ data: ['local'] });
  });

  it('creates an objectstore provider: 201 {id}, secrets encrypted at rest and answered masked', async () => {
    const res = await t.req('POST', base, { name: 's3', value: s3.config });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: { id: expect.any(Number) } });

    const stored = await storedValue('s3');
    expect(JSON.stringify(stored)).not.toContain('S3RVER');
    expect(decryptSecret(stored.secretKey as string, testEnv().SECRET)).toBe('S3RVER');

    const one = await t.req('GET', `${base}/s3`);
    expect(one.body.data).toEqual({
      id: res.body.data.id, name: 's3', extension_key: 'system_storage_provider',
      value: { ...s3.config, accessKey: '********', secretKey: '********' },
    });
    expect((await t.req('GET', base)).body.data).toHaveLength(1);
    // The first configured provider is the default; the built-in local driver stays as fallback.
    expect((await t.req('GET', '/files/storage-locations')).body).toEqual({ data: ['s3', 'local'] });
  });

  it('reloads in every process: another instance sees the new provider at once', async () => {
    expect((await other.req('GET', '/files/storage-locations')).body.data).toContain('s3');
  });

  it('builds a working driver from the stored record (a real S3-protocol round trip)', async () => {
    const providers = await t.services.storage.providers((await t.services.schema.get()).version);
    const driver = providers.get('s3');
    await driver.write('probe.txt', Readable.from([Buffer.from('through the provider')]));
    const chunks: Buffer[] = [];
    for await (const c of await driver.read('probe.txt')) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('through the provider');
    await driver.delete('probe.txt');
  });

  it('PATCH with the mask keeps the stored secret; a new value replaces it', async () => {
    const { id } = (await t.req('GET', `${base}/s3`)).body.data;
    const before = await storedValue('s3');
    const res = await t.req('PATCH', `${base}/${id}`, { value: { region: 'eu-west-1', secretKey: '********', accessKey: '********' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id } });
    const after = await storedValue('s3');
    expect(after.region).toBe('eu-west-1');
    expect(decryptSecret(after.secretKey as string, testEnv().SECRET)).toBe('S3RVER');
    expect(after.bucket).toBe(before.bucket);

    expect((await t.req('PATCH', `${base}/${id}`, { value: { secretKey: 'new-secret' } })).status).toBe(200);
    expect(decryptSecret((await storedValue('s3')).secretKey as string, testEnv().SECRET)).toBe('new-secret');
    await t.req('PATCH', `${base}/${id}`, { value: { secretKey: 'S3RVER', region: 'us-east-1' } });
  });

  it('creates an objectstore provider without keys: the AWS default credential chain signs (here: the environment)', async () => {
    const { accessKey: _a, secretKey: _s, ...keyless } = s3.config;
    const res = await t.req('POST', base, { name: 'role', value: keyless });
    expect(res.status).toBe(201);
    expect(await storedValue('role')).toEqual(keyless);
    expect((await t.req('GET', `${base}/role`)).body.data.value).toEqual(keyless);
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, imds: process.env.AWS_EC2_METADATA_DISABLED };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_EC2_METADATA_DISABLED: 'true' });
    try {
      const driver = (await t.services.storage.providers((await t.services.schema.get()).version)).get('role');
      await driver.write('role.txt', Readable.from([Buffer.from('signed by the role')]));
      const chunks: Buffer[] = [];
      for await (const c of await driver.read('role.txt')) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('signed by the role');
      await driver.delete('role.txt');
    } finally {
      for (const [k, v] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret], ['AWS_EC2_METADATA_DISABLED', saved.imds]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    // Keys can be added later, and removed again (null) to go back to the chain.
    const { id } = (await t.req('GET', `${base}/role`)).body.data;
    expect((await t.req('PATCH', `${base}/${id}`, { value: { accessKey: 'S3RVER', secretKey: 'S3RVER' } })).status).toBe(200);
    expect((await t.req('GET', `${base}/role`)).body.data.value).toMatchObject({ accessKey: '********', secretKey: '********' });
    expect((await t.req('PATCH', `${base}/${id}`, { value: { accessKey: null, secretKey: null } })).status).toBe(200);
    expect(await storedValue('role')).toEqual(keyless);
    // One without the other is refused.
    const half = await t.req('PATCH', `${base}/${id}`, { value: { accessKey: 'S3RVER' } });
    expect(half.status).toBe(400);
    expect(half.body.errors[0].message).toContain('"value.accessKey" and "value.secretKey" go together');
    expect((await t.req('DELETE', `${base}/${id}`)).status).toBe(204);
  });

  it('creates local providers: root defaults to STORAGE_LOCAL_ROOT; traversal and relative roots refused', async () => {
    const res = await t.req('POST', base, { name: 'disk', value: { driver: 'local' } });
    expect(res.status).toBe(201);
    expect((await t.req('GET', `${base}/disk`)).body.data.value).toEqual({ driver: 'local', root });
    for (const bad of ['relative/dir', '/srv/../etc', '/srv/a/..', 'C:dir', '']) {
      const r = await t.req('POST', base, { name: 'bad-local', value: { driver: 'local', root: bad === '' ? 5 : bad } });
      expect(r.status, bad).toBe(400);
      expect(code(r)).toBe('INVALID_PAYLOAD');
    }
  });

  it.each([
    [{ value: { driver: 'local' } }, 'name'],
    [{ name: 'x' }, 'value'],
    [{ name: 'x', value: 'local' }, 'value'],
    [{ name: '../x', value: { driver: 'local' } }, 'name'],
    [{ name: 'x', value: { driver: 'ftp' } }, 'driver'],
    [{ name: 'x', value: { driver: 'objectstore', region: 'r', accessKey: 'a', secretKey: 's' } }, 'bucket'],
    [{ name: 'x', value: { driver: 'objectstore', bucket: 'b', region: 'r', accessKey: 'a', secretKey: 's', endpoint: 'ftp://h' } }, 'endpoint'],
    [{ name: 'x', value: { driver: 'objectstore', bucket: 'b', region: 'r', accessKey: 'a', secretKey: 's', forcePathStyle: 'yes' } }, 'forcePathStyle'],
    [{ name: 'x', value: { driver: 'objectstore', bucket: 'b', region: 'r', accessKey: 'a' } }, 'secretKey'],
    [{ name: 'x', value: { driver: 'objectstore', bucket: 'b', region: 'r', secretKey: 's' } }, 'accessKey'],
    [{ name: 'x', value: { driver: 'local', color: 'red' } }, 'color'],
    [{ name: 'x', value: { driver: 'local' }, extra: 1 }, 'extra'],
  ])('refuses %j with 400 naming %s', async (body, needle) => {
    const res = await t.req('POST', base, body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toContain(needle);
    // A setting's refusal names it, so a form can show it on its field.
    if (!['value', 'extra', 'name'].includes(needle)) expect(res.body.errors[0].extensions.field).toBe(`value.${needle}`);
    expect(await run(t.services.database.db, "select 1 from svc_extension_settings where name = 'x'")).toHaveLength(0);
  });

  it('refuses a duplicate name with 409 and unknown ids with 404', async () => {
    const dup = await t.req('POST', base, { name: 'disk', value: { driver: 'local' } });
    expect(dup.status).toBe(409);
    expect(code(dup)).toBe('RECORD_NOT_UNIQUE');
    expect((await t.req('GET', `${base}/nope`)).status).toBe(404);
    expect((await t.req('PATCH', `${base}/999999`, { value: {} })).status).toBe(404);
    expect((await t.req('PATCH', `${base}/abc`, { value: {} })).status).toBe(404);
    expect((await t.req('DELETE', `${base}/999999`)).status).toBe(404);
  });

  it('is admin only', async () => {
    for (const [method, path, body] of [['GET', base], ['GET', `${base}/s3`], ['POST', base, { name: 'y', value: { driver: 'local' } }],
      ['PATCH', `${base}/1`, { value: {} }], ['DELETE', `${base}/1`], ['GET', '/files/storage-locations']] as const) {
      expect((await t.req(method, path, body, { token: 'not-admin' })).status, `${method} ${path}`).toBe(403);
      expect((await t.req(method, path, body, { token: null })).status, `${method} ${path}`).toBe(403);
    }
  });

  it('DELETE removes the provider in every process; files naming it then fail with a clear error', async () => {
    const { id } = (await t.req('GET', `${base}/disk`)).body.data;
    expect((await t.req('DELETE', `${base}/${id}`)).status).toBe(204);
    expect((await t.req('GET', `${base}/disk`)).status).toBe(404);
    expect((await other.req('GET', '/files/storage-locations')).body.data).not.toContain('disk');
    const providers = await t.services.storage.providers((await t.services.schema.get()).version);
    expect(() => providers.get('disk')).toThrow(/Storage provider "disk" is not configured/);
  });
});
