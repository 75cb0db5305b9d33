/** The deployable Lambda bundle (scripts/build-lambda.ts), not the TypeScript sources: built once into a temporary
 * directory, then imported by a FRESH `node` process (no tsx, as the nodejs20.x runtime does) that hands its exported
 * `handler` API Gateway HTTP API v2 events (test/bench/lambda-child.mjs). The database part needs a Postgres server
 * (TEST_DATABASE_URL: the Lambda always runs on DATABASE_URL, never on the embedded database); CI sets it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { buildLambda, EXTERNALS, type LambdaBuild } from '../../scripts/build-lambda.ts';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { ADMIN_EMAIL, ADMIN_TOKEN, testEnv } from '../helpers/template.ts';

const pgUrl = process.env.TEST_DATABASE_URL;
if (process.env.CI === 'true' && !pgUrl) console.warn('lambda-bundle: TEST_DATABASE_URL is not set, the database part is skipped');

const CHILD = resolve('test/bench/lambda-child.mjs');
let dir: string;
let out: LambdaBuild;

interface Step { method?: string; path?: string; query?: string; headers?: Record<string, string>; body?: string; parallel?: Step[] }
interface StepResult {
  statusCode?: number; statusCodes: (number | null)[]; body?: string; headers?: Record<string, string>;
  error?: { name?: string; message?: string; code?: string };
}
interface ChildResult {
  importMs: number;
  steps: StepResult[];
  services: { sameServices: boolean; poolMax: number | null; connections: number | null };
}

/** Runs the bundle in a fresh node process with only the given environment (plus PATH). */
function runChild(env: Record<string, string>, steps: Step[]): Promise<ChildResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, [CHILD, out.outfile, JSON.stringify(steps)], {
      env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000, maxBuffer: 16 * 1024 * 1024,
    }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`lambda child failed: ${err.message}\n${stderr}`));
      try {
        resolvePromise(JSON.parse(stdout.trim().split('\n').pop()!) as ChildResult);
      } catch {
        reject(new Error(`lambda child printed no result:\n${stdout}\n${stderr}`));
      }
    });
  });
}

beforeAll(async () => {
  // Inside the checkout (.build is ignored), so the runtime externals resolve from node_modules as they would
  // from the deployment package.
  mkdirSync('.build', { recursive: true });
  dir = mkdtempSync(join(resolve('.build'), 'lambda-test-'));
  out = await buildLambda(dir);
}, 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Lambda bundle (scripts/build-lambda.ts)', () => {
  it('is ESM whose externals are only imported lazily (nothing native or embedded loads at import)', () => {
    expect(out.bytes).toBeGreaterThan(100_000);
    // Code splitting: what only import() reaches (migrations, bootstrap) is not part of the cold-start bytes.
    expect(out.totalBytes).toBeGreaterThan(out.bytes);
    const text = readFileSync(out.outfile, 'utf8');
    expect(text.startsWith('import')).toBe(true);
    const outputs = Object.entries(out.metafile.outputs).filter(([file]) => file.endsWith('.mjs')).map(([, o]) => o);
    const lazyChunks = outputs.filter((o) => Object.keys(o.inputs).some((f) => f.endsWith('migrations/0001_system_tables.ts')));
    expect(lazyChunks).toHaveLength(1);
    const externalImports = outputs.flatMap((o) => o.imports).filter((i) => i.external && !i.path.startsWith('node:') && !builtinModules.includes(i.path.split('/')[0]!));
    // Every external the bundle refers to is one we declared, and each is reached through import() only.
    expect(externalImports.length).toBeGreaterThan(0);
    // A package's subpaths (`@electric-sql/pglite/contrib/pg_trgm`) are external with it.
    const packageOf = (path: string) => path.split('/').slice(0, path.startsWith('@') ? 2 : 1).join('/');
    for (const i of externalImports) {
      expect(EXTERNALS as readonly string[]).toContain(packageOf(i.path));
      // pg-native: pg's own `pg.native` getter require()s it on access, never at import.
      const lazy = i.path === 'pg-native' ? 'require-call' : 'dynamic-import';
      expect({ path: i.path, kind: i.kind }).toEqual({ path: i.path, kind: lazy });
    }
    // PGlite is loaded by the embedded engine's worker thread (core/db/pglite-worker.ts), never by the bundle itself.
    expect(externalImports.map((i) => i.path)).toEqual(expect.arrayContaining(['sharp', '@node-rs/argon2']));
  });

  it('reads at a cold start only what a first request needs: no route group, SDK or library loaded on demand', () => {
    const cold = out.coldStartInputs;
    expect(cold).toContain('functions/lambda.ts');
    expect(cold).toContain('functions/http/lazy-routes.ts');
    // Route groups are imported by the first request reaching them (functions/routes/lazy.ts): the list of groups
    // and the manifest are read, no group module.
    expect(cold.filter((f) => /^functions\/routes\/(?!lazy\.ts|groups\.ts|manifest\.ts)/.test(f))).toEqual([]);
    const packages = new Set(cold.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean));
    for (const lazy of ['graphql', 'graphql-yoga', 'nodemailer', 'ioredis', 'ajv', 'handlebars', 'rate-limiter-flexible', 'zod',
      '@aws-sdk/client-s3', '@aws-sdk/client-sqs', '@aws-sdk/lib-storage', '@aws-sdk/client-sesv2', 'prom-client', 'qs', 'otplib']) {
      expect(packages.has(lazy), lazy).toBe(false);
    }
    for (const dir of ['core/openapi/', 'core/graphql/', 'core/items/', 'core/query/', 'core/versions/', 'core/db/migrations', 'migrations/']) {
      expect(cold.filter((f) => f.startsWith(dir)), dir).toEqual([]);
    }
    expect(out.bytes).toBeLessThan(600_000);
  });

  it('imports in a fresh process without touching the database; a failed start is retried on the next event', async () => {
    const env = { ...testEnv(), DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' };
    const r = await runChild(env, [{ method: 'GET', path: '/server/ping' }, { method: 'GET', path: '/server/ping' }]);
    // Both invocations failed on the database (loading the extensions records them there): the first failure
    // was not cached, the second event tried again.
    expect(r.steps.map((s) => s.error?.code)).toEqual(['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE']);
    expect(r.services.sameServices).toBe(false);
  });

  it('refuses to start without SECRET (every instance must verify every other instance\'s tokens)', async () => {
    const { SECRET: _secret, ...env } = testEnv();
    const r = await runChild({ ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, [{ method: 'GET', path: '/server/ping' }]);
    expect(r.steps[0]!.error?.message).toMatch(/SECRET must be set/);
  });
});

describe.skipIf(!pgUrl)('Lambda bundle against Postgres (TEST_DATABASE_URL)', () => {
  let database: TestDatabase;
  beforeAll(async () => { database = await cloneTestDatabase(); }, 60_000);
  afterAll(async () => { await database?.drop(); });

  it('answers ping and authenticated item requests; one Services and a pool of at most 2 per instance', async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const r = await runChild({ ...testEnv(), DATABASE_URL: database.url! }, [
      { method: 'GET', path: '/server/ping' },
      {
        method: 'POST', path: '/collections', headers: auth, body: JSON.stringify({
          collection: 'articles', schema: {},
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'title', type: 'string' },
          ],
        }),
      },
      { method: 'POST', path: '/items/articles', headers: auth, body: JSON.stringify([{ title: 'one' }, { title: 'two' }]) },
      { method: 'GET', path: '/items/articles', query: 'fields=title&sort=id', headers: auth },
      { method: 'GET', path: '/items/articles', query: 'fields=title', headers: { authorization: 'Bearer not-a-token' } },
      // Six at once: a pool bounded at 2 queues them instead of opening six connections.
      {
        parallel: Array.from({ length: 6 }, (_, i) => ({
          method: 'GET', path: i % 2 ? '/users' : '/items/articles', query: i % 2 ? `filter[email][_eq]=${ADMIN_EMAIL}&fields=email` : 'fields=id', headers: auth,
        })),
      },
    ]);
    const [ping, created, inserted, read, badToken, parallel] = r.steps;
    expect(ping).toMatchObject({ statusCode: 200, body: 'pong' });
    expect(created!.statusCode).toBe(200);
    expect(inserted!.statusCode).toBe(200);
    expect(read!.statusCode).toBe(200);
    expect(JSON.parse(read!.body!)).toEqual({ data: [{ title: 'one' }, { title: 'two' }] });
    expect(badToken!.statusCode).toBe(401);
    expect(JSON.parse(badToken!.body!).errors[0].extensions.code).toEqual(expect.any(String));
    expect(parallel!.statusCodes).toEqual([200, 200, 200, 200, 200, 200]);
    expect(JSON.parse(parallel!.body!)).toEqual({ data: [{ email: ADMIN_EMAIL }] });
    // Every invocation ran on the Services the first one created (pool, schema cache, store).
    expect(r.services.sameServices).toBe(true);
    expect(r.services.poolMax).toBe(2);
    expect(r.services.connections).toBeGreaterThanOrEqual(1);
    expect(r.services.connections).toBeLessThanOrEqual(2);
  });

  it('DB_POOL_MAX overrides the Lambda default', async () => {
    const r = await runChild({ ...testEnv(), DATABASE_URL: database.url!, DB_POOL_MAX: '1' }, [
      { parallel: [1, 2, 3].map(() => ({ method: 'GET', path: '/users', query: 'fields=email', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })) },
    ]);
    expect(r.steps[0]!.statusCodes).toEqual([200, 200, 200]);
    expect(r.services).toEqual({ sameServices: true, poolMax: 1, connections: 1 });
  });
});
