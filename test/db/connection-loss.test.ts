/** Lost database (and shared-store) connections, for real: a listening server process on its own Postgres
 * database serves reads and writes while the test terminates every backend of that database (what a database
 * restart, a managed failover or a proxy recycling connections does). The process must survive, requests that
 * lost their connection answer 503 SERVICE_UNAVAILABLE without driver text, and later requests succeed on fresh
 * connections. Runs where a Postgres server is configured (TEST_DATABASE_URL); the embedded PGlite has no
 * connections to lose. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { ADMIN_TOKEN, testEnv } from '../helpers/template.ts';
import { freePort } from '../helpers/free-port.ts';

const pgUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
const namespace = `test-loss-${randomBytes(4).toString('hex')}`;

let database: TestDatabase;
let server: ChildProcess;
let base: string;
let output = '';

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

async function startServer(): Promise<void> {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ['--import', 'tsx', 'container/main.ts'], {
    env: {
      ...process.env,
      ...testEnv(),
      DATABASE_URL: database.url!,
      DB_POOL_MAX: '6',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_NAMESPACE: namespace } : { REDIS_URL: '' }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => { output += d; });
  server.stderr!.on('data', (d) => { output += d; });
  const deadline = Date.now() + 60_000;
  while (!output.includes('listening on')) {
    if (server.exitCode !== null) throw new Error(`server exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function terminateBackends(): Promise<number> {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      'select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [new URL(database.url!).pathname.slice(1)]);
    return rows.filter((r) => r.killed).length;
  } finally {
    await admin.end();
  }
}

/** Kills this server's Redis connections (named after its namespace), as a Redis restart would. */
async function killRedisClients(): Promise<number> {
  const admin = new Redis(redisUrl!);
  try {
    const list = await admin.client('LIST') as string;
    let killed = 0;
    for (const line of list.split('\n')) {
      if (!line.includes(`name=svc:${namespace}`)) continue;
      const id = /(?:^| )id=(\d+)/.exec(line)?.[1];
      if (id) killed += Number(await admin.client('KILL', 'ID', id));
    }
    return killed;
  } finally {
    admin.disconnect();
  }
}

describe.skipIf(!pgUrl)('lost database connections (Postgres server)', () => {
  beforeAll(async () => {
    database = await cloneTestDatabase();
    await startServer();
    const created = await call('POST', '/collections', {
      collection: 'notes', schema: {},
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'title', type: 'string' },
      ],
    });
    expect(created.status).toBe(200);
    expect((await call('POST', '/items/notes', [{ title: 'a' }, { title: 'b' }])).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
    await database?.drop();
  });

  it('survives its backends being terminated under load: 200 or 503, never a crash or a driver message', async () => {
    const statuses: number[] = [];
    const unexpected: unknown[] = [];
    let stop = false;
    const requests: Array<() => Promise<{ status: number; body: any }>> = [
      () => call('GET', '/items/notes?limit=5'),
      () => call('GET', '/items/notes/1'),
      () => call('POST', '/items/notes', { title: 'one' }),
      // A batch create runs as a transaction of several statements: a client is held between statements.
      () => call('POST', '/items/notes', [{ title: 'x' }, { title: 'y' }, { title: 'z' }]),
      () => call('PATCH', '/items/notes/1', { title: 'changed' }),
      () => call('GET', '/users/me'),
    ];
    const workers = requests.map(async (request) => {
      while (!stop) {
        const res = await request();
        statuses.push(res.status);
        if (res.status !== 200) {
          const error = res.body?.errors?.[0];
          if (res.status !== 503 || error?.extensions?.code !== 'SERVICE_UNAVAILABLE' || /terminat|connection/i.test(error.message)) {
            unexpected.push(res);
          }
        }
      }
    });

    let killed = 0;
    let redisKilled = 0;
    for (let round = 0; round < 5; round++) {
      await new Promise((r) => setTimeout(r, 300));
      killed += await terminateBackends();
      if (redisUrl) redisKilled += await killRedisClients();
    }
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(workers);

    expect(killed).toBeGreaterThan(0);
    if (redisUrl) expect(redisKilled).toBeGreaterThan(0);
    expect(server.exitCode, output).toBeNull();
    expect(unexpected).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(output).not.toMatch(/Unhandled|uncaught/i);
  });

  it('serves the next requests on fresh connections without a restart', async () => {
    // The pool may still hand out a client whose termination it has not noticed yet; one 503 at most each.
    const read = async () => {
      const first = await call('GET', '/items/notes/1');
      return first.status === 503 ? call('GET', '/items/notes/1') : first;
    };
    expect((await read()).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      expect((await call('GET', '/items/notes?limit=1')).status).toBe(200);
      expect((await call('POST', '/items/notes', { title: `after ${i}` })).status).toBe(200);
    }
    expect((await call('GET', '/server/health')).status).toBe(200);
    expect(server.exitCode).toBeNull();
  });

  it('answers 503 while the database refuses connections, then recovers', async () => {
    const dbName = new URL(database.url!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    try {
      await admin.query(`alter database ${dbName} allow_connections false`);
      await terminateBackends();
      const res = await call('GET', '/items/notes?limit=1');
      expect(res.status).toBe(503);
      expect(res.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.body.errors[0].extensions.reason).toBeUndefined();
      expect((await call('GET', '/server/health')).status).toBe(503);
    } finally {
      await admin.query(`alter database ${dbName} allow_connections true`);
      await admin.end();
    }
    expect((await call('GET', '/items/notes?limit=1')).status).toBe(200);
    expect(server.exitCode).toBeNull();
  });
});
