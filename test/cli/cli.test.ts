/** The `svc` command line as an operator runs it: `node bin/svc.mjs ...` in a child process, on its own database (a
 * new embedded DATA_DIR, or a new Postgres database with TEST_DATABASE_URL), and on a running server (--url/--token).
 * Exit codes: 0 done, 1 failed (one line on stderr), 2 usage, 3 `schema diff --exit-code` found differences. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import pg from 'pg';
import { stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN, testEnv, withDatabase } from '../helpers/template.ts';
import { buildRichSchema, comparable } from '../schema/snapshot-model.ts';
import { startS3 } from '../helpers/s3.ts';
import { loadConfig } from '../../core/config.ts';
import { createServices } from '../../core/services.ts';
import { detachedContext } from '../../core/extensions/items-api.ts';
import { createProvider } from '../../core/storage/providers.ts';

const BIN = resolve('bin/svc.mjs');
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
const pgBase = process.env.TEST_DATABASE_URL;
const pgName = `svc_cli_${process.pid}`;
let env: Record<string, string>;
let source: TestApp;
let snapshot: any;

interface Run { code: number; stdout: string; stderr: string }

function svc(args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env, ...extraEnv }, timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const file = (name: string): string => join(dir, name);

beforeAll(async () => {
  env = testEnv({ DATA_DIR: file('data'), STORAGE_LOCAL_ROOT: file('uploads'), LOG_LEVEL: 'silent' });
  if (pgBase) {
    const c = new pg.Client({ connectionString: pgBase });
    await c.connect();
    await c.query(`drop database if exists ${pgName} with (force)`);
    await c.query(`create database ${pgName}`);
    await c.end();
    env.DATABASE_URL = withDatabase(pgBase, pgName);
  }
  source = await createTestApp();
  await buildRichSchema(source);
  snapshot = (await source.req('GET', '/schema/snapshot')).body.data;
  writeFileSync(file('schema.yaml'), toYaml(snapshot));
}, 120_000);

afterAll(async () => {
  await source?.close();
  if (pgBase) {
    const c = new pg.Client({ connectionString: pgBase });
    await c.connect();
    await c.query(`drop database if exists ${pgName} with (force)`);
    await c.end();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('svc', () => {
  it('prints its help, and refuses an unknown command with exit code 2', async () => {
    const help = await svc(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['schema', 'migrate', 'users', 'export', 'import', 'doctor']) expect(help.stdout).toContain(c);
    const applyHelp = await svc(['schema', 'apply', '--help']);
    expect(applyHelp.stdout).toMatch(/--allow-destructive/);
    const bad = await svc(['schemas']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown command 'schemas'/);
  });

  it('runs the migrations of a new database, then has none left', async () => {
    const first = await svc(['migrate']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Ran \d+ migrations:/);
    const again = await svc(['migrate', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ ran: [] });
  });

  it('applies a snapshot file to the empty database; its snapshot is then the same and a diff is empty', async () => {
    const diff = await svc(['schema', 'diff', 'schema.yaml', '--exit-code']);
    expect(diff.code).toBe(3);
    expect(diff.stdout).toMatch(/\+ collection articles/);
    const dry = await svc(['schema', 'apply', 'schema.yaml', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/create table "articles"/);
    const refused = await svc(['schema', 'apply', 'schema.yaml']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('svc: not applied: pass --yes to apply without a question\n');
    const applied = await svc(['schema', 'apply', 'schema.yaml', '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/^Applied \d+ steps to /m);
    expect((await svc(['schema', 'snapshot', 'after.json'])).code).toBe(0);
    expect(comparable(JSON.parse(readFileSync(file('after.json'), 'utf8')))).toEqual(comparable(snapshot));
    const same = await svc(['schema', 'diff', 'schema.yaml', '--exit-code']);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/matches schema\.yaml/);
    expect((await svc(['schema', 'apply', 'schema.yaml', '--yes', '--json'])).stdout).toContain('"applied": false');
  });

  it('applies a data-losing file only with --allow-destructive', async () => {
    const partial = structuredClone(snapshot);
    partial.collections = partial.collections.filter((c: any) => c.collection !== 'home');
    partial.fields = partial.fields.filter((f: any) => f.collection !== 'home');
    writeFileSync(file('no-home.json'), JSON.stringify(partial));
    const diff = await svc(['schema', 'diff', 'no-home.json', '--json']);
    expect(JSON.parse(diff.stdout).destructive).toEqual([expect.objectContaining({ kind: 'collection', collection: 'home' })]);
    const refused = await svc(['schema', 'apply', 'no-home.json', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('svc: the change loses data: it deletes 1 collection (home). Nothing was changed; pass --allow-destructive to go ahead\n');
    expect((await svc(['schema', 'diff', 'schema.yaml', '--exit-code'])).code).toBe(0);
    const applied = await svc(['schema', 'apply', 'no-home.json', '--yes', '--allow-destructive']);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await svc(['schema', 'diff', 'no-home.json', '--exit-code'])).code).toBe(0);
  });

  it('creates, lists and changes the password of users', async () => {
    const created = await svc(['users', 'create', 'editor@example.com', '--role', 'Administrator', '--first-name', 'Eve'], { SVC_PASSWORD: 'Editor-pass-123' });
    expect(created.code, created.stderr).toBe(0);
    const list = JSON.parse((await svc(['users', 'list', '--json'])).stdout);
    expect(list.map((u: any) => u.email)).toContain('editor@example.com');
    const table = (await svc(['users', 'list'])).stdout;
    expect(table).toMatch(/^EMAIL\s+NAME\s+ROLE\s+STATUS$/m);
    expect(table).toMatch(/^editor@example\.com\s+Eve\s+Administrator\s+active$/m);
    expect((await svc(['users', 'passwd', 'editor@example.com', '--password', 'Another-pass-456'])).code).toBe(0);
    const missing = await svc(['users', 'passwd', 'nobody@example.com', '--password', 'x']);
    expect(missing).toMatchObject({ code: 1, stderr: 'svc: no user with the email nobody@example.com\n' });
    const noPassword = await svc(['users', 'create', 'x@example.com']);
    expect(noPassword.code).toBe(2);
  });

  it('imports in batches, goes on with --resume after a refused batch, and exports', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ name: `tag ${i + 1}` }));
    (items[699] as any).name = { not: 'a string' };
    writeFileSync(file('tags.json'), JSON.stringify(items));
    const failed = await svc(['import', 'tags', 'tags.json', '--batch-size', '300']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/\(items 601-900; the 600 before are in: --resume goes on from there\)/);
    const asked = await svc(['import', 'tags', 'tags.json']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/stopped after 600 items/);
    items[699] = { name: 'tag 700' };
    writeFileSync(file('tags.json'), JSON.stringify(items));
    const resumed = await svc(['import', 'tags', 'tags.json', '--batch-size', '300', '--resume', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ collection: 'tags', file: 'tags.json', imported: 400, skipped: 600 });
    const exported = await svc(['export', 'tags', 'tags.csv']);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = readFileSync(file('tags.csv'), 'utf8').trim().split('\n');
    expect(lines[0]).toBe('id,name');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(items.map((i) => i.name));
  });

  it('checks the configuration with doctor: database, Redis, every storage provider (S3 too), queue, mail', async () => {
    // Two S3 providers on the CLI's database: one on a real S3 server's bucket, one on a bucket that does not exist.
    const s3 = await startS3();
    const services = await createServices(loadConfig(env), { workers: false });
    try {
      const ctx = await detachedContext(services, null)();
      await createProvider(services, ctx, { name: 's3', value: s3.config });
      await createProvider(services, ctx, { name: 'gone', value: { ...s3.config, bucket: 'no-such-bucket' } });
    } finally {
      await services.close();
    }
    try {
      const res = await svc(['doctor', '--json'], { EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: '1' });
      const checks = JSON.parse(res.stdout);
      const status = Object.fromEntries(checks.map((c: any) => [c.check, c.status]));
      expect(status).toMatchObject({
        configuration: 'ok', database: 'ok', redis: 'ok', 'storage local': 'ok', 'storage s3': 'ok', 'storage gone': 'fail', queue: 'ok', mail: 'warn',
      });
      expect(checks.find((c: any) => c.check === 'storage gone').fix).toMatch(/bucket/);
      expect(res.code).toBe(1);
    } finally {
      await s3.close();
    }
    const broken = await svc(['doctor'], { REDIS_URL: 'redis://127.0.0.1:1', EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: '1' });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^FAIL {2}redis .*\n {6}-> start Redis, or correct REDIS_URL/m);
  });
});

describe('svc against a running server', () => {
  let server: ServerType;
  let url: string;
  let target: TestApp;
  beforeAll(async () => {
    target = await createTestApp();
    server = serve({ fetch: target.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await target.close();
  });

  it('applies and snapshots over HTTP with --url and --token', async () => {
    const noToken = await svc(['--url', url, 'schema', 'snapshot']);
    expect(noToken).toMatchObject({ code: 2, stderr: "svc: --url needs --token (or SVC_TOKEN): an admin's static token\n" });
    const applied = await svc(['--url', url, '--token', ADMIN_TOKEN, 'schema', 'apply', 'schema.yaml', '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Applied`);
    expect(comparable((await target.req('GET', '/schema/snapshot')).body.data)).toEqual(comparable(snapshot));
    const out = await svc(['schema', 'snapshot', '--format', 'json'], { SVC_URL: url, SVC_TOKEN: ADMIN_TOKEN });
    expect(comparable(JSON.parse(out.stdout))).toEqual(comparable(snapshot));
    const wrongToken = await svc(['--url', url, '--token', 'nope', 'schema', 'snapshot']);
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/^svc: GET \/schema\/snapshot: .*\(HTTP 401\)\n$/);
    const down = await svc(['--url', 'http://127.0.0.1:1', '--token', ADMIN_TOKEN, 'schema', 'snapshot']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^svc: http:\/\/127\.0\.0\.1:1 did not answer: /);
  });
});
