// A fresh Lambda instance, as the nodejs20.x runtime starts one: plain `node` (no tsx), import the bundle, then hand
// its exported `handler` API Gateway HTTP API (payload 2.0) events. Used by test/lambda/bundle.test.ts and
// test/bench/lambda-cold-start.ts.
//
//   node test/bench/lambda-child.mjs <bundle.mjs> <steps JSON>
//
// steps: [{ method, path, query?, headers?, body? }, ...], invoked in order. Prints one JSON line on stdout:
// { startMs, startCpuMs, importMs, importCpuMs, connectMs, redisConnectMs, steps: [{ atMs, cpuMs, statusCode, body, headers, cookies }], services }: wall
// times are milliseconds since this process started (performance.now() counts from the process's time origin);
// cpuMs is this process's user+system CPU time so far (less sensitive than wall time to a loaded machine).
// services: whether every invocation saw the same instance Services (currentServices()), and its pool bound.
import { pathToFileURL } from 'node:url';

const [bundle, stepsJson] = process.argv.slice(2);
const steps = JSON.parse(stepsJson ?? '[]');

/** A real HTTP API (payload format 2.0) event, as API Gateway sends it for the `$default` route. */
function event(i) {
  const headers = {
    accept: '*/*',
    host: 'abc123.execute-api.eu-west-1.amazonaws.com',
    'user-agent': 'lambda-test/1.0',
    'x-amzn-trace-id': 'Root=1-65a1b2c3-0123456789abcdef01234567',
    'x-forwarded-for': '198.51.100.7',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
    ...i.headers,
  };
  if (i.body !== undefined) headers['content-length'] = String(Buffer.byteLength(i.body));
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: i.path,
    rawQueryString: i.query ?? '',
    headers,
    ...(i.query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(i.query)) } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method: i.method, path: i.path, protocol: 'HTTP/1.1', sourceIp: '198.51.100.7', userAgent: 'lambda-test/1.0' },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey: '$default',
      stage: '$default',
      time: '10/Mar/2026:10:00:00 +0000',
      timeEpoch: 1773136800000,
    },
    ...(i.body !== undefined ? { body: i.body } : {}),
    isBase64Encoded: false,
  };
}

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const startMs = performance.now();
const startCpuMs = cpuMs();
const mod = await import(pathToFileURL(bundle).href);
const importMs = performance.now();
const importCpuMs = cpuMs();
const results = [];
const seen = new Set();
/** One invocation, or several at once (`{ parallel: [step, ...] }`: exercises the pool bound). */
async function invoke(step, n) {
  const context = { functionName: 'svc-functions', awsRequestId: `req-${n}`, getRemainingTimeInMillis: () => 30_000 };
  try {
    return await mod.handler(event(step), context);
  } catch (err) {
    // The runtime would report an invocation error; record it and carry on (the next invocation retries init).
    return { error: { name: err?.name, message: err?.message, code: err?.code } };
  }
}
for (const [n, step] of steps.entries()) {
  const all = await Promise.all(step.parallel ? step.parallel.map((s, i) => invoke(s, `${n}.${i}`)) : [invoke(step, n)]);
  seen.add(mod.currentServices?.() ?? null);
  const res = all[all.length - 1];
  results.push({ atMs: performance.now(), cpuMs: cpuMs(), error: res.error, statusCode: res.statusCode, statusCodes: all.map((r) => r.statusCode ?? null), body: res.body, headers: res.headers, cookies: res.cookies });
}
const services = mod.currentServices?.() ?? null;
let connections = null;
if (services?.database.kind === 'pg') {
  // Server connections this instance's pool holds now (this query uses one of them).
  const r = await services.database.db.executeQuery({
    sql: 'select count(*)::int as n from pg_stat_activity where datname = current_database() and backend_type = $1',
    parameters: ['client backend'], query: { kind: 'RawNode', sqlFragments: [], parameters: [] }, queryId: { queryId: 'pool' },
  });
  connections = r.rows[0].n;
}
// LAMBDA_CHILD_MEASURE_CONNECT: time one fresh pg connection to DATABASE_URL (connect and authenticate) after the
// events, with pg already imported, so the bench can report the cold start with and without the database connect.
let connectMs = null;
if (process.env.LAMBDA_CHILD_MEASURE_CONNECT && process.env.DATABASE_URL) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  const t0 = performance.now();
  await client.connect();
  connectMs = performance.now() - t0;
  await client.end();
}
// With REDIS_URL as well: one fresh Redis connection (connect and ready), the other network setup of a first event.
let redisConnectMs = null;
if (process.env.LAMBDA_CHILD_MEASURE_CONNECT && process.env.REDIS_URL) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
  const t0 = performance.now();
  await redis.connect();
  redisConnectMs = performance.now() - t0;
  redis.disconnect();
}
const info = { sameServices: seen.size === 1 && !seen.has(null), poolMax: services?.config.dbPoolMax ?? null, connections };
process.stdout.write(`${JSON.stringify({ startMs, startCpuMs, importMs, importCpuMs, connectMs, redisConnectMs, steps: results, services: info })}\n`);
// A Lambda instance is frozen, not ended: open pool connections would keep this process alive.
process.exit(0);
