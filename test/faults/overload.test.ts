/** Overload, for real: 500 concurrent connections (autocannon) on a primary-key read and then on a create, against a
 * server process with the pressure limiter on. Every answer is a 2xx or a 503 carrying Retry-After (no 500, no
 * reset, no timeout), the process's resident memory stays under a ceiling, and a second after the load stops it
 * serves normally again. */
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { call } from '../split/harness.ts';
import { type FaultServer, notesDatabase, PG_SKIP, PG_URL, rssOf, sleep, spawnServer } from './harness.ts';

const CONNECTIONS = 500;
/** Requests per run: every one of them must get its answer (a fixed duration would drop those in flight). */
const AMOUNT = 2000;
/** The resident memory the process must stay under while loaded (idle it is about 150-200 MB). */
const RSS_CEILING = 512 * 1024 * 1024;

let database: TestDatabase;
let server: FaultServer;

interface Outcome { statuses: Record<string, number>; missingRetryAfter: number; errors: number; timeouts: number; maxRss: number; requests: number }

async function hammer(method: string, path: string, body?: string): Promise<Outcome> {
  let missingRetryAfter = 0;
  let maxRss = 0;
  const sampler = setInterval(() => { rssOf(server.proc.pid!).then((rss) => { maxRss = Math.max(maxRss, rss); }, () => {}); }, 100);
  try {
    const result = await autocannon({
      url: server.url,
      connections: CONNECTIONS,
      amount: AMOUNT,
      timeout: 30,
      requests: [{
        method, path, body,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        onResponse: (status, _body, _context, headers) => {
          if (status === 503 && !headers['retry-after']) missingRetryAfter++;
        },
      }],
    });
    const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
    return { statuses, missingRetryAfter, errors: result.errors, timeouts: result.timeouts, maxRss, requests: result.requests.total };
  } finally {
    clearInterval(sampler);
    maxRss = Math.max(maxRss, await rssOf(server.proc.pid!));
  }
}

async function servesNormally(): Promise<void> {
  await sleep(1000);
  for (let i = 0; i < 10; i++) {
    const started = Date.now();
    const res = await call(server.url, 'GET', '/items/notes/1', { timeoutMs: 5000 });
    expect(res.status, res.text).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
  }
  expect((await call(server.url, 'POST', '/items/notes', { body: { title: 'after' }, timeoutMs: 5000 })).status).toBe(200);
}

describe.skipIf(!PG_URL)(`overload: ${CONNECTIONS} connections${PG_SKIP}`, () => {
  beforeAll(async () => {
    database = await notesDatabase();
    server = await spawnServer({
      databaseUrl: database.url!,
      env: {
        // Shedding on event-loop delay and memory. The utilisation limit is off: with 500 connections the loop is
        // busy all the time even when it only answers 503s, so a utilisation limit, once crossed, sheds every
        // request for as long as the load lasts (measured: 0 of 279 answered 2xx in 3 s at the former 0.99 default;
        // it is off by default now, and admission sheds on queueing: test/faults/admission.test.ts).
        PRESSURE_LIMITER_ENABLED: 'true', PRESSURE_LIMITER_SAMPLE_INTERVAL: '100', PRESSURE_LIMITER_MAX_EVENT_LOOP_DELAY: '250',
        PRESSURE_LIMITER_MAX_EVENT_LOOP_UTILIZATION: '0', PRESSURE_LIMITER_MAX_MEMORY_RSS: '400mb', DB_POOL_MAX: '10',
      },
    });
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  for (const [name, method, path, body] of [
    ['a primary-key read', 'GET', '/items/notes/1', undefined],
    ['a create', 'POST', '/items/notes', JSON.stringify({ title: 'load' })],
  ] as const) {
    it(`${name}: 2xx or 503 with Retry-After, bounded memory, normal service a second later`, async () => {
      const out = await hammer(method, path, body);
      if (process.env.FAULTS_DEBUG) console.log(name, JSON.stringify({ ...out, maxRss: `${Math.round(out.maxRss / 2 ** 20)} MB` }));
      const answered = Object.values(out.statuses).reduce((a, b) => a + b, 0);
      expect(answered).toBe(AMOUNT);
      // Load is shed, not the whole service: requests are still served meanwhile (the share depends on how busy
      // the machine is).
      expect(out.statuses['200'] ?? 0, JSON.stringify(out.statuses)).toBeGreaterThan(0);
      const others = Object.keys(out.statuses).filter((code) => !code.startsWith('2') && code !== '503');
      expect(others, JSON.stringify(out.statuses)).toEqual([]);
      expect(out.missingRetryAfter).toBe(0);
      expect({ errors: out.errors, timeouts: out.timeouts }).toEqual({ errors: 0, timeouts: 0 });
      expect(out.maxRss).toBeLessThan(RSS_CEILING);
      await servesNormally();
      expect(server.proc.exitCode, server.output()).toBeNull();
    }, 150_000);
  }
});
