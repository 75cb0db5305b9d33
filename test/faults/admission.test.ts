/** Admission, not utilisation (PRESSURE_ADMISSION_*): a server process with the DEFAULT pressure settings serves a
 * busy load without a single 503, and under a flood it keeps serving at close to its normal rate from a bounded
 * queue while the excess gets a quick 503 with Retry-After; a full queue refuses before the body is read.
 *
 * Runs on a Postgres server (with TEST_DATABASE_URL) and on the embedded PGlite (in the pass without it).
 * Thresholds are for a loaded 2-core CI machine that also runs the load generator; the figures on a quiet machine
 * are in test/bench/results-admission.md (`npm run bench:admission`). */
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/app.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN } from '../helpers/template.ts';
import { call, multipart } from '../split/harness.ts';
import { type FaultServer, notesDatabase, PG_SKIP, PG_URL, rssOf, sleep, spawnServer } from './harness.ts';

/** What testEnv and the harness change from the defaults, put back: the limiter on (testEnv turns it off for
 * in-process tests) and the default pool of 10 (the harness uses 6). Nothing else about pressure is set. */
const DEFAULTS = { PRESSURE_LIMITER_ENABLED: 'true', DB_POOL_MAX: '10' };
const RSS_CEILING = 512 * 1024 * 1024;

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

interface Target { name: string; method: string; path: string; body?: string }

interface Outcome {
  statuses: Record<string, number>;
  ok: number;
  okPerSec: number;
  okP99Ms: number;
  shed: number;
  shedMaxMs: number;
  shedP50Ms: number;
  shedP99Ms: number;
  missingRetryAfter: number;
  errors: number;
  timeouts: number;
  maxRss: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}

async function load(server: FaultServer, token: string, target: Target, connections: number, seconds: number): Promise<Outcome> {
  let missingRetryAfter = 0;
  let maxRss = 0;
  const okMs: number[] = [];
  const shedMs: number[] = [];
  const sampler = setInterval(() => { rssOf(server.proc.pid!).then((rss) => { maxRss = Math.max(maxRss, rss); }, () => {}); }, 200);
  try {
    const instance = autocannon({
      url: server.url,
      connections,
      duration: seconds,
      timeout: 20,
      requests: [{
        method: target.method, path: target.path, body: target.body,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        onResponse: (status, _body, _context, headers) => {
          if (status === 503 && !headers['retry-after']) missingRetryAfter++;
        },
      }],
    });
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) okMs.push(ms);
      else if (status === 503) shedMs.push(ms);
    });
    const result = await instance;
    okMs.sort((a, b) => a - b);
    shedMs.sort((a, b) => a - b);
    const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
    return {
      statuses, ok: okMs.length, okPerSec: okMs.length / seconds, okP99Ms: percentile(okMs, 99),
      shed: shedMs.length, shedMaxMs: shedMs.at(-1) ?? 0, shedP50Ms: percentile(shedMs, 50), shedP99Ms: percentile(shedMs, 99),
      missingRetryAfter, errors: result.errors, timeouts: result.timeouts, maxRss,
    };
  } finally {
    clearInterval(sampler);
    maxRss = Math.max(maxRss, await rssOf(server.proc.pid!).catch(() => 0));
  }
}

function debug(label: string, out: Outcome): void {
  if (process.env.FAULTS_DEBUG) console.log(label, JSON.stringify({ ...out, maxRss: `${Math.round(out.maxRss / 2 ** 20)} MB` }));
}

interface Engine {
  name: string;
  skip: string;
  /** Bounds on the latency of the flood's 503s: median and slowest. */
  shedMs: { p50: number; max: number };
  /** The least share of the flood's answers that must be 2xx (the old limiter served 1-10%); null where the share
   * measures the client's retry loop more than the server (see the engine's comment). */
  minOkShare: number | null;
  /** Starts the server with the defaults and a `notes` collection of 100 rows; returns it with an admin token. */
  start(uploads: string): Promise<{ server: FaultServer; token: string; cleanup(): Promise<void> }>;
}

const ENGINES: Engine[] = [
  {
    name: 'Postgres', skip: PG_SKIP, shedMs: { p50: 200, max: 3_000 }, minOkShare: 0.5,
    async start(uploads) {
      const database = await notesDatabase(100);
      const server = await spawnServer({ databaseUrl: database.url!, env: { ...DEFAULTS, STORAGE_LOCAL_ROOT: uploads } });
      return { server, token: ADMIN_TOKEN, cleanup: () => database.drop() };
    },
  },
  {
    // The engine most installations run: one connection in a worker thread of the server process, 4 admission slots.
    // Under 500 connections on a loaded machine even a refusal made at once waits its turn on the loop: the bounds say
    // it was refused before its wait budget ran out, and that nothing hangs. There the engine's real rate makes 500
    // waiting requests exceed the 1 s budget, so some are refused and answered at once, and the flood's clients,
    // which retry without pause and ignore Retry-After, send more. How many 503s that makes depends on how fast the
    // client can turn them around, not on what the server serves: CI machines saw 42% of the answers 2xx in one run
    // and 3% in another (1,629 served, 57,086 refused) with the served rate above its floor in both. So on this
    // engine the test bounds what the server controls, the served rate against the 10-connection rate.
    name: 'embedded PGlite', skip: PG_URL ? ' (skipped: runs in the pass without TEST_DATABASE_URL)' : '',
    shedMs: { p50: 1_000, max: 10_000 }, minOkShare: null,
    async start(uploads) {
      const dataDir = await mkdtemp(join(tmpdir(), 'admission-data-'));
      const server = await spawnServer({ databaseUrl: '', env: { PRESSURE_LIMITER_ENABLED: 'true', DATA_DIR: dataDir, STORAGE_LOCAL_ROOT: uploads, ACCESS_TOKEN_TTL: '1h' } });
      const login = await call(server.url, 'POST', '/auth/login', { token: null, body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(login.status, login.text).toBe(200);
      const token: string = login.body.data.access_token;
      const pk = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
      const created = await call(server.url, 'POST', '/collections', { token, body: { collection: 'notes', schema: {}, fields: [pk, { field: 'title', type: 'string' }] } });
      expect(created.status, created.text).toBe(200);
      const rows = await call(server.url, 'POST', '/items/notes', { token, body: Array.from({ length: 100 }, (_, i) => ({ title: i === 0 ? 'first' : `seed ${i}` })) });
      expect(rows.status, rows.text).toBe(200);
      return { server, token, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
    },
  },
];

for (const engine of ENGINES) {
  describe.skipIf(Boolean(engine.skip))(`admission with the default pressure settings, ${engine.name}${engine.skip}`, () => {
    let server: FaultServer;
    let token: string;
    let cleanup: (() => Promise<void>) | undefined;
    let uploads: string;
    let targets: Target[];
    /** 2xx per second of pk reads at 10 connections, the yardstick of the flood. */
    let baseline = 0;
    const request = (t: Target, timeoutMs?: number) =>
      call(server.url, t.method, t.path, { token, body: t.body, headers: t.body ? { 'content-type': 'application/json' } : {}, timeoutMs });

    beforeAll(async () => {
      uploads = await mkdtemp(join(tmpdir(), 'admission-'));
      ({ server, token, cleanup } = await engine.start(uploads));
      const form = multipart({ title: 'pixel' }, { name: 'pixel.png', type: 'image/png', data: PNG });
      const file = await call(server.url, 'POST', '/files', { token, body: form.body, headers: { 'content-type': form.contentType } });
      expect(file.status, file.text).toBe(200);
      targets = [
        { name: 'pk read', method: 'GET', path: '/items/notes/1' },
        { name: 'GraphQL', method: 'POST', path: '/graphql', body: JSON.stringify({ query: '{ notes_by_id(id: 1) { id title } }' }) },
        { name: 'asset', method: 'GET', path: `/assets/${file.body.data.id}` },
      ];
      // Each kind once, so the first run does not measure the import of a route group.
      for (const t of targets) {
        const r = await request(t);
        expect(r.status, `${t.name}: ${r.text}`).toBe(200);
      }
    }, 150_000);

    afterAll(async () => {
      await server?.stop();
      await cleanup?.();
      if (uploads) await rm(uploads, { recursive: true, force: true });
    });

    for (const connections of [10, 50]) {
      it(`${connections} connections on pk reads, GraphQL and assets: every answer 2xx, not one 503`, async () => {
        for (const target of targets) {
          const out = await load(server, token, target, connections, 3);
          debug(`${engine.name} ${connections} ${target.name}`, out);
          if (connections === 10 && target.name === 'pk read') baseline = out.okPerSec;
          expect(out.statuses, `${target.name} at ${connections} connections`).toEqual({ 200: out.ok });
          expect(out.ok).toBeGreaterThan(100);
          expect({ errors: out.errors, timeouts: out.timeouts }).toEqual({ errors: 0, timeouts: 0 });
        }
      }, 120_000);
    }

    it('500 connections on pk reads for 8 s: most of the 10-connection rate served, 2xx p99 bounded, the rest a quick 503, RSS bounded, normal service a second later', async () => {
      if (!baseline) baseline = (await load(server, token, targets[0], 10, 3)).okPerSec;
      const out = await load(server, token, targets[0], 500, 8);
      debug(`${engine.name} 500 pk read (baseline ${Math.round(baseline)}/s)`, out);
      // The bench's target is 80% and more; a loaded CI machine that runs the 500-connection client on the same two
      // cores gets less. The old utilisation limit answered 98% of the flood 503 (598 of 50,050 served).
      expect(out.okPerSec, JSON.stringify(out.statuses)).toBeGreaterThan(0.3 * baseline);
      if (engine.minOkShare !== null) expect(out.ok / (out.ok + out.shed), JSON.stringify(out.statuses)).toBeGreaterThan(engine.minOkShare);
      // Served from a line bounded by the 1 s wait budget (plus a loaded machine's lag), not after the pool's 5 s
      // connect timeout.
      expect(out.okP99Ms).toBeLessThan(3_000);
      const others = Object.keys(out.statuses).filter((code) => code !== '200' && code !== '503');
      expect(others, JSON.stringify(out.statuses)).toEqual([]);
      expect(out.missingRetryAfter).toBe(0);
      // Refused at once (the line is full or its measured wait is over the budget), or at the latest when the
      // budget is spent: never the pool's 5 s. (The bench measures their latency.)
      if (out.shed > 0) {
        expect(out.shedP50Ms).toBeLessThan(engine.shedMs.p50);
        expect(out.shedMaxMs).toBeLessThan(engine.shedMs.max);
      }
      expect({ errors: out.errors, timeouts: out.timeouts }).toEqual({ errors: 0, timeouts: 0 });
      expect(out.maxRss).toBeLessThan(RSS_CEILING);
      await sleep(1_000);
      for (const t of targets) {
        const started = Date.now();
        const r = await request(t, 5_000);
        expect(r.status, `${t.name} after the flood: ${r.text}`).toBe(200);
        expect(Date.now() - started).toBeLessThan(1_000);
      }
      expect(server.proc.exitCode, server.output()).toBeNull();
    }, 120_000);
  });
}

/** A request whose headers announce `length` body bytes of which only `sent` are written; `finish()` sends the rest. */
function partialRequest(base: string, method: string, path: string, length: number, sent: number) {
  let resolveAnswer!: (v: { status: number; retryAfter: string | undefined; ms: number; text: string }) => void;
  const answer = new Promise<{ status: number; retryAfter: string | undefined; ms: number; text: string }>((r) => { resolveAnswer = r; });
  const started = Date.now();
  const req = httpRequest(base + path, {
    method, agent: false,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': String(length) },
  }, (res) => {
    let text = '';
    res.on('data', (c: Buffer) => { text += c; });
    res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, ms: Date.now() - started, text }));
  });
  req.on('error', () => {});
  const body = Buffer.alloc(length, 0x20);
  body.write('{"title":"slow"}');
  req.write(body.subarray(0, sent));
  req.flushHeaders();
  return { answer, finish: () => req.end(body.subarray(sent)), abort: () => req.destroy() };
}

describe.skipIf(!PG_URL)(`admission: a full queue${PG_SKIP}`, () => {
  let database: TestDatabase;
  let server: FaultServer;

  beforeAll(async () => {
    database = await notesDatabase();
    server = await spawnServer({
      databaseUrl: database.url!,
      env: { ...DEFAULTS, PRESSURE_ADMISSION_CONCURRENCY: '1', PRESSURE_ADMISSION_QUEUE: '1', PRESSURE_ADMISSION_MAX_WAIT: '400ms', PRESSURE_LIMITER_RETRY_AFTER: '3' },
    });
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('refuses at once with 503 and Retry-After before reading the body, times a queued request out at its wait budget, and never sheds /server/ping', async () => {
    // The only slot: a create whose body is still arriving.
    const holder = partialRequest(server.url, 'POST', '/items/notes', 64, 4);
    await sleep(300);
    // The one queue place.
    const queuedStarted = Date.now();
    const queued = call(server.url, 'GET', '/items/notes/1', { timeoutMs: 10_000 });
    await sleep(50);
    // Queue full: refused at once, although its 1 MB body never comes.
    const refused = partialRequest(server.url, 'POST', '/items/notes', 1_000_000, 0);
    const r = await refused.answer;
    expect(r.status, r.text).toBe(503);
    expect(r.retryAfter).toBe('3');
    expect(JSON.parse(r.text)).toEqual({ errors: [{ message: 'Under pressure', extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
    expect(r.ms).toBeLessThan(300);
    refused.abort();
    expect((await call(server.url, 'GET', '/server/ping', { token: null, timeoutMs: 2_000 })).status).toBe(200);
    // The queued request gets its 503 when its wait budget is spent, not after the pool's 5 s connect timeout.
    const q = await queued;
    expect(q.status, q.text).toBe(503);
    expect(q.headers['retry-after']).toBe('3');
    expect(Date.now() - queuedStarted).toBeGreaterThanOrEqual(350);
    expect(Date.now() - queuedStarted).toBeLessThan(2_000);
    // The holder finishes its body and is served; then the slot is free again.
    holder.finish();
    const h = await holder.answer;
    expect(h.status, h.text).toBe(200);
    expect((await call(server.url, 'GET', '/items/notes/1', { timeoutMs: 5_000 })).status).toBe(200);
  }, 60_000);
});
