/** Real processes for the fault suite: `node --import tsx container/main.ts` in a given SVC_MODE on a private
 * Postgres database (cloned from the test template), with short timeouts from the environment. Faults are made
 * for real: signals to the process, pg_terminate_backend on its backends, a Redis server of the test's own.
 *
 * Gate: the suite needs TEST_DATABASE_URL (and REDIS_URL for the shared-store parts), as the second and third
 * passes of .ci/run set them; without them a file is skipped with the reason in its name. .ci/run itself fails
 * when Postgres or Redis is unreachable, and global-setup fails when TEST_DATABASE_URL points nowhere. */
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { freePort } from '../helpers/free-port.ts';
import { testEnv } from '../helpers/template.ts';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';

export const PG_URL = process.env.TEST_DATABASE_URL;
export const REDIS_URL = process.env.REDIS_URL;
export const PG_SKIP = PG_URL ? '' : ' (skipped: set TEST_DATABASE_URL, as .ci/run does)';
export const SHARED_SKIP = PG_URL && REDIS_URL ? '' : ' (skipped: set TEST_DATABASE_URL and REDIS_URL, as the third pass of .ci/run does)';

export interface FaultServer {
  url: string;
  port: number;
  proc: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL unless already gone; waits for the exit. */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  databaseUrl: string;
  mode?: 'standalone' | 'container' | 'functions';
  env?: Record<string, string>;
}

/** Spawns the server and waits for its `listening on` line (or fails with its output). */
export async function spawnServer(opts: SpawnOptions): Promise<FaultServer> {
  const port = await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'container/main.ts'], {
    env: {
      ...process.env,
      ...testEnv(),
      REDIS_URL: '',
      DATABASE_URL: opts.databaseUrl,
      SVC_MODE: opts.mode ?? 'standalone',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      DB_POOL_MAX: '6',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout!.on('data', (d) => { output += d; });
  proc.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const deadline = Date.now() + 120_000;
  while (!output.includes('listening on')) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`server exited: ${output}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`server did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    proc,
    output: () => output,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** A pg client on `url` for the duration of `fn`. */
export async function withPg<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A private database cloned from the test template with a `notes` collection (activity and revisions on),
 * seeded with `seedRows` rows. */
export async function notesDatabase(seedRows = 1): Promise<TestDatabase> {
  const database = await cloneTestDatabase();
  await withPg(database.url!, async (c) => {
    await c.query('create table notes (id serial primary key, title text)');
    await c.query("insert into svc_collections (collection, accountability) values ('notes', 'all')");
    await c.query("insert into notes (title) select case when $1::int = 1 then 'first' else 'seed ' || g end from generate_series(1, $1::int) g", [seedRows]);
  });
  return database;
}

/** Terminates every backend of the database `url` names (what a restart or failover does to its clients). */
export async function terminateBackends(url: string): Promise<number> {
  const name = new URL(url).pathname.slice(1);
  return withPg(PG_URL!, async (admin) => {
    const { rows } = await admin.query(
      'select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    return rows.filter((r) => r.killed).length;
  });
}

/** The resident set size of a process in bytes (Linux /proc). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kb ?? 0) * 1024;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
