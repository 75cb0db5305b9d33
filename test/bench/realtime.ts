/** Realtime rows of the benchmark (keys w, x, y), on their own database (svc_bench_realtime) and service (:8069),
 * started as `npm start` runs it with the default settings (WEBSOCKETS_* and REALTIME_* unset: handshake auth,
 * 30 s heartbeat, in-process change log; no Redis). Only the rate limiter is off, as in every bench: its per-IP
 * bucket (50 requests/s) would refuse one client's 500 writes/s and its limits are per client, not per server.
 *
 *   (w) 10,000 idle subscribers (BENCH_RT_IDLE): WebSocket clients (package `ws`) each authenticate with the static
 *       token of a reader user (handshake: `{type:'auth', access_token}`) and subscribe to one collection (no
 *       query: the init carries its 10 rows); server RSS before, after all are subscribed, after 10 s idle, after
 *       all closed; memory per connection = (RSS after 10 s idle - RSS before) / connections; time to connect all
 *       (to the last open, to the last init).
 *   (x) one event to 1,000 subscribers (BENCH_RT_SUBSCRIBERS): BENCH_RT_EVENTS single-item POSTs (default 20, after
 *       3 unmeasured), one every 250 ms; latency from just before sending the POST (and from its answer) to each
 *       subscriber's receipt of the `create` message; p50/p99 over all deliveries, and the time until the last
 *       subscriber had it (p50 / max over the events).
 *   (y) BENCH_RT_RATE POST /items/... per second (500) for BENCH_RT_WRITE_SECONDS (20) with no subscriber, then
 *       the same with the 1,000 subscribers of (x); achieved 2xx/s and latency p50/p99 (from each request's
 *       scheduled time, so a stall is not hidden), the ratios, and every subscriber's count of rows received
 *       against the 2xx answers (waiting at most BENCH_RT_DRAIN_MAX s, 60, after the last answer). The same pair at
 *       BENCH_RT_LOW_RATE POST/s (100; 0 skips it) runs first, on the same subscribers.
 *
 * Subscribers live in BENCH_RT_CLIENT_PROCS (2) Node processes (test/bench/realtime-client.ts), never in the
 * server's; the writes come from this process (node:http, keep-alive, a paced open loop: request i goes at
 * start + i / rate, whatever the answers before it). Receive times are performance.timeOrigin + performance.now()
 * in every process, comparable on one machine. Everything (server, Postgres, clients, writer) shares the cores.
 * Run alone with `BENCH_SCENARIOS=w,x,y npm run bench` (or `npm run bench:realtime`). */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startServer, logTail, type ServerProcess } from './processes.ts';
import { fmt, query, withDatabase } from './shared.ts';

export const REALTIME_SCENARIO_KEYS = ['w', 'x', 'y'] as const;

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const PORT = 8069;
const DATABASE = 'svc_bench_realtime';
const COLLECTION = 'messages';
const clientFile = join(here, 'realtime-client.ts');

function envInt(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? '');
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

const settings = {
  idle: envInt('BENCH_RT_IDLE', 10_000),
  subscribers: envInt('BENCH_RT_SUBSCRIBERS', 1000),
  events: envInt('BENCH_RT_EVENTS', 20),
  rate: envInt('BENCH_RT_RATE', 500),
  /** A second, lower rate measured the same way (0 = none): where the service stands below the required rate. */
  lowRate: Number(process.env.BENCH_RT_LOW_RATE ?? 100),
  drainSeconds: envInt('BENCH_RT_DRAIN_MAX', 60),
  writeSeconds: envInt('BENCH_RT_WRITE_SECONDS', 20),
  writeSockets: envInt('BENCH_RT_WRITE_SOCKETS', 50),
  clientProcs: envInt('BENCH_RT_CLIENT_PROCS', 2),
  connectConcurrency: envInt('BENCH_RT_CONNECT_CONCURRENCY', 100),
};

function log(message: string): void {
  console.log(`[bench:realtime] ${message}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.timeOrigin + performance.now();

function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN;
}

/** VmRSS / VmHWM of a process in KiB. */
function memKb(pid: number | undefined): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function openFileLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s{2,}/)[1] ?? NaN);
}

// ---------------------------------------------------------------------------------------------------------------
// Subscriber processes

interface Counts {
  ev: 'counts'; connections: number; open: number; rows: number; messages: number; minRows: number; maxRows: number;
  unexpectedCloses: Record<string, number>; serverErrors: Record<string, number>; other: Record<string, number>; rssMb: number; cpuSeconds: number;
}
interface Connected { ev: 'connected'; ready: number; failed: number; failures: Record<string, number>; openMs: number; readyMs: number }

interface Client {
  proc: ChildProcess;
  ask<T>(cmd: Record<string, unknown>, ev: string, timeoutMs?: number): Promise<T>;
  end(): Promise<void>;
}

async function spawnClient(index: number): Promise<Client> {
  const proc = spawn(process.execPath, ['--import', 'tsx', clientFile], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiters = new Map<string, ((value: unknown) => void)[]>();
  let exited: string | null = null;
  const failers = new Set<(err: Error) => void>();
  proc.once('exit', (code, signal) => {
    exited = `subscriber process ${index} exited (${code ?? signal})`;
    for (const fail of failers) fail(new Error(exited));
  });
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    let msg: { ev?: string };
    try {
      msg = JSON.parse(line) as { ev?: string };
    } catch {
      console.log(`[subscribers ${index}] ${line}`);
      return;
    }
    const list = waiters.get(msg.ev ?? '');
    const first = list?.shift();
    if (first) first(msg);
  });
  const wait = <T>(ev: string, timeoutMs: number) => new Promise<T>((resolve, reject) => {
    if (exited) { reject(new Error(exited)); return; }
    const timer = setTimeout(() => reject(new Error(`subscriber process ${index}: no '${ev}' within ${timeoutMs / 1000} s`)), timeoutMs);
    const fail = (err: Error) => { clearTimeout(timer); reject(err); };
    failers.add(fail);
    waiters.set(ev, [...(waiters.get(ev) ?? []), (value) => { clearTimeout(timer); failers.delete(fail); resolve(value as T); }]);
  });
  const client: Client = {
    proc,
    ask: <T>(cmd: Record<string, unknown>, ev: string, timeoutMs = 120_000) => {
      const answer = wait<T>(ev, timeoutMs);
      proc.stdin!.write(JSON.stringify(cmd) + '\n');
      return answer;
    },
    end: () => new Promise<void>((resolve) => {
      if (exited) { resolve(); return; }
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      proc.once('exit', () => { clearTimeout(timer); resolve(); });
      proc.stdin!.end();
    }),
  };
  await wait('ready', 60_000);
  return client;
}

/** Splits `total` connections over the clients; answers the sum and the wall time of the whole connect. */
async function connectAll(clients: Client[], total: number, url: string, token: string) {
  const share = (i: number) => Math.floor(total / clients.length) + (i < total % clients.length ? 1 : 0);
  const t0 = performance.now();
  const answers = await Promise.all(clients.map((c, i) => c.ask<Connected>({
    cmd: 'connect', url, token, collection: COLLECTION, count: share(i), concurrency: settings.connectConcurrency,
  }, 'connected', 600_000)));
  const wallMs = performance.now() - t0;
  const failures: Record<string, number> = {};
  for (const a of answers) for (const [k, v] of Object.entries(a.failures)) failures[k] = (failures[k] ?? 0) + v;
  return {
    ready: answers.reduce((s, a) => s + a.ready, 0), failed: answers.reduce((s, a) => s + a.failed, 0), failures,
    openMs: Math.max(...answers.map((a) => a.openMs)), readyMs: Math.max(...answers.map((a) => a.readyMs)), wallMs,
  };
}

async function countsOf(clients: Client[]) {
  const all = await Promise.all(clients.map((c) => c.ask<Counts>({ cmd: 'counts' }, 'counts')));
  const merge = (pick: (c: Counts) => Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const c of all) for (const [k, v] of Object.entries(pick(c))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return {
    connections: all.reduce((s, c) => s + c.connections, 0), open: all.reduce((s, c) => s + c.open, 0),
    rows: all.reduce((s, c) => s + c.rows, 0), messages: all.reduce((s, c) => s + c.messages, 0),
    minRows: Math.min(...all.map((c) => c.minRows)), maxRows: Math.max(...all.map((c) => c.maxRows)),
    unexpectedCloses: merge((c) => c.unexpectedCloses), serverErrors: merge((c) => c.serverErrors), other: merge((c) => c.other),
    clientRssMb: all.map((c) => c.rssMb), clientCpuSeconds: all.reduce((s, c) => s + c.cpuSeconds, 0),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Writes

interface WriteRun {
  scheduled: number; ok: number; non2xx: number; errors: number; seconds: number; okPerSec: number;
  p50Ms: number; p99Ms: number; maxMs: number; sendP50Ms: number; sendP99Ms: number; lateStarts: number; serverCpuSeconds: number;
  statuses: Record<string, number>;
  errorMessages: Record<string, number>;
}

function poster(baseUrl: string, token: string, sockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const { hostname, port } = new URL(baseUrl);
  return (body: string) => new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request({
      agent, hostname, port, method: 'POST', path: `/items/${COLLECTION}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

let serial = 0;
const itemBody = () => JSON.stringify({ title: `Message ${++serial}`, body: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(2), n: serial });

/** The paced open loop: `rate` POSTs a second for `seconds`, request i at start + i * 1000 / rate ms. */
async function pacedWrites(post: ReturnType<typeof poster>, rate: number, seconds: number, serverPid: number | undefined): Promise<WriteRun> {
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const latencies: number[] = [];
  const sendLatencies: number[] = [];
  const statuses: Record<string, number> = {};
  const errorMessages: Record<string, number> = {};
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let lateStarts = 0;
  let lastEnd = 0;
  const cpu0 = cpuSeconds(serverPid);
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  let i = 0;
  while (i < total) {
    const t = performance.now();
    while (i < total && start + i * interval <= t) {
      const scheduled = start + i * interval;
      if (t - scheduled > 5) lateStarts++;
      i++;
      inFlight.push(post(itemBody()).then(
        (res) => {
          const end = performance.now();
          lastEnd = Math.max(lastEnd, end);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status >= 200 && res.status < 300) {
            ok++;
            latencies.push(end - scheduled);
            sendLatencies.push(end - t);
          } else non2xx++;
        },
        (err: Error) => { errors++; errorMessages[err.message] = (errorMessages[err.message] ?? 0) + 1; },
      ));
    }
    const next = start + i * interval;
    await sleep(Math.max(0, Math.min(1, next - performance.now())));
  }
  await Promise.all(inFlight);
  const elapsed = ((lastEnd || performance.now()) - start) / 1000;
  latencies.sort((a, b) => a - b);
  sendLatencies.sort((a, b) => a - b);
  return {
    scheduled: total, ok, non2xx, errors, seconds: elapsed, okPerSec: ok / elapsed,
    p50Ms: pct(latencies, 50), p99Ms: pct(latencies, 99), maxMs: latencies[latencies.length - 1] ?? NaN,
    sendP50Ms: pct(sendLatencies, 50), sendP99Ms: pct(sendLatencies, 99), lateStarts,
    serverCpuSeconds: cpuSeconds(serverPid) - cpu0, statuses, errorMessages,
  };
}

// ---------------------------------------------------------------------------------------------------------------

async function api<T>(baseUrl: string, token: string | null, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
  return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
}

const idOf = (x: unknown): string => String(typeof x === 'object' && x !== null ? (x as { id: unknown }).id : x);

export interface RealtimeBenchSettings { adminUrl: string }

export async function runRealtimeBench(keys: readonly string[], base: RealtimeBenchSettings): Promise<void> {
  const want = (k: string) => keys.includes(k);
  const neededFds = (want('w') ? settings.idle : settings.subscribers) + 1000;
  const limit = openFileLimit();
  if (limit < neededFds) {
    throw new Error(`realtime rows: the open-file limit is ${limit}, the server needs about ${neededFds} descriptors for ${settings.idle} sockets; raise it (\`ulimit -n ${neededFds}\`) or lower BENCH_RT_IDLE`);
  }
  const dbUrl = withDatabase(base.adminUrl, DATABASE);
  const email = 'bench-realtime@example.com';
  const password = `bench-${randomBytes(9).toString('hex')}`;
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const readerToken = `bench-reader-${randomBytes(12).toString('hex')}`;
  const load0 = loadavg()[0];
  const started: ServerProcess[] = [];
  const clients: Client[] = [];
  await query(base.adminUrl, `drop database if exists ${DATABASE} with (force)`);
  await query(base.adminUrl, `create database ${DATABASE}`);
  const results: Record<string, unknown> = {};
  const lines: string[] = [];
  const notes: string[] = [];
  let service: ServerProcess | undefined;
  try {
    service = await startServer({
      name: 'service-realtime', cwd: root, script: 'container/main.ts', port: PORT,
      env: {
        DATABASE_URL: dbUrl, ADMIN_EMAIL: email, ADMIN_PASSWORD: password, SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMITER_ENABLED: 'false',
      },
    });
    started.push(service);
    const pid = service.child.pid;
    const baseUrl = service.baseUrl;
    const wsUrl = `${baseUrl.replace(/^http/, 'ws')}/websocket`;

    // Seed through the API: the admin's static token, the collection, a reader role allowed to read it, its user.
    const login = await api<{ access_token: string }>(baseUrl, null, 'POST', '/auth/login', { email, password });
    const me = await api<{ id: string }>(baseUrl, login.access_token, 'GET', '/users/me?fields=id');
    await api(baseUrl, login.access_token, 'PATCH', `/users/${me.id}`, { token: adminToken });
    const pk = { field: 'id', type: 'integer', meta: { hidden: true }, schema: { is_primary_key: true, has_auto_increment: true } };
    const field = (name: string, type: string) => ({ field: name, type, meta: { interface: 'input' }, schema: {} });
    await api(baseUrl, adminToken, 'POST', '/collections', {
      collection: COLLECTION, meta: {}, schema: { name: COLLECTION }, fields: [pk, field('title', 'string'), field('body', 'text'), field('n', 'integer')],
    });
    const role = idOf(await api(baseUrl, adminToken, 'POST', '/roles', { name: 'Realtime readers' }));
    const policy = idOf(await api(baseUrl, adminToken, 'POST', '/policies', { name: 'Read messages', app_access: false, admin_access: false, roles: [role] }));
    await api(baseUrl, adminToken, 'POST', '/permissions', { policy, collection: COLLECTION, action: 'read', fields: ['*'] });
    await api(baseUrl, adminToken, 'POST', '/users', { email: 'reader@example.com', password: `r-${randomBytes(9).toString('hex')}`, token: readerToken, status: 'active', role });
    await api(baseUrl, adminToken, 'POST', `/items/${COLLECTION}`, Array.from({ length: 10 }, () => JSON.parse(itemBody()) as unknown));
    const seen = await api<unknown[]>(baseUrl, readerToken, 'GET', `/items/${COLLECTION}?limit=100`);
    if (!Array.isArray(seen) || seen.length !== 10) throw new Error(`the reader sees ${JSON.stringify(seen).slice(0, 200)} instead of 10 rows`);
    log(`seeded ${COLLECTION} (10 rows), a reader role allowed to read it and its user (static token)`);

    for (let i = 0; i < settings.clientProcs; i++) clients.push(await spawnClient(i));
    const post = poster(baseUrl, adminToken, settings.writeSockets);
    await sleep(3000);

    // (w) idle subscribers
    if (want('w')) {
      const n = settings.idle;
      const before = memKb(pid);
      log(`(w) connecting ${n} subscribers from ${clients.length} processes (${settings.connectConcurrency} handshakes in flight each); server RSS ${Math.round(before.rss / 1024)} MiB`);
      const c = await connectAll(clients, n, wsUrl, readerToken);
      const afterConnect = memKb(pid);
      log(`(w) ${c.ready} subscribed, ${c.failed} failed in ${fmt(c.readyMs / 1000, 1)} s; RSS ${Math.round(afterConnect.rss / 1024)} MiB`);
      await sleep(10_000);
      const afterIdle = memKb(pid);
      const counts = await countsOf(clients);
      const cpuIdle0 = cpuSeconds(pid);
      await sleep(5000);
      const idleCpuShare = (cpuSeconds(pid) - cpuIdle0) / 5;
      await Promise.all(clients.map((cl) => cl.ask({ cmd: 'close' }, 'closed')));
      await sleep(5000);
      const afterClose = memKb(pid);
      await sleep(25_000);
      const afterClose30 = memKb(pid);
      const perConnKb = c.ready ? (afterIdle.rss - before.rss) / c.ready : NaN;
      const perConnKbAtConnect = c.ready ? (afterConnect.rss - before.rss) / c.ready : NaN;
      results.w = { connections: n, ...c, rssKb: { before: before.rss, afterConnect: afterConnect.rss, afterIdle10s: afterIdle.rss, afterClose5s: afterClose.rss, afterClose30s: afterClose30.rss, peak: afterClose30.hwm }, perConnKb, perConnKbAtConnect, openAfter10s: counts.open, idleCpuShare, counts };
      lines.push(`| (w) ${fmt(n)} idle subscribers (auth + subscribe), one server process | ${fmt(c.ready)} subscribed, ${fmt(c.failed)} failed; all open in ${fmt(c.openMs / 1000, 1)} s, all subscribed in **${fmt(c.readyMs / 1000, 1)} s**; server RSS ${fmt(before.rss / 1024)} → ${fmt(afterConnect.rss / 1024)} MiB (10 s later ${fmt(afterIdle.rss / 1024)}; all closed: 5 s later ${fmt(afterClose.rss / 1024)}, 30 s later ${fmt(afterClose30.rss / 1024)}): **${fmt(perConnKb, 1)} KiB per connection** | |`);
      if (c.failed) notes.push(`- (w) failures: ${JSON.stringify(c.failures)}`);
      if (counts.open !== c.ready) notes.push(`- (w) ${c.ready - counts.open} of ${c.ready} connections were no longer open 10 s after connecting; closes: ${JSON.stringify(counts.unexpectedCloses)}`);
      if (Object.keys(counts.serverErrors).length) notes.push(`- (w) server errors: ${JSON.stringify(counts.serverErrors)}`);
      notes.push(`- (w) the idle server used ${fmt(idleCpuShare * 100, 1)} % of a core with ${fmt(counts.open)} connections open.`);
      log(lines[lines.length - 1]);
    }

    // (y), first half: the writes with no subscriber.
    const rates = [settings.rate, ...(settings.lowRate > 0 ? [settings.lowRate] : [])];
    const baselines = new Map<number, WriteRun>();
    if (want('y')) {
      log(`(y) warm-up: ${settings.rate} writes/s for 3 s`);
      await pacedWrites(post, settings.rate, 3, pid);
      for (const rate of rates) {
        await sleep(2000);
        const b = await pacedWrites(post, rate, settings.writeSeconds, pid);
        baselines.set(rate, b);
        log(`(y) ${rate}/s, no subscriber: ${fmt(b.okPerSec)} 2xx/s, p50 ${fmt(b.p50Ms, 1)} ms, p99 ${fmt(b.p99Ms, 1)} ms (${b.non2xx} non-2xx, ${b.errors} errors)`);
      }
    }

    if (want('x') || want('y')) {
      const n = settings.subscribers;
      const c = await connectAll(clients, n, wsUrl, readerToken);
      log(`${c.ready} subscribers of ${n} ready in ${fmt(c.readyMs / 1000, 1)} s (${c.failed} failed${c.failed ? `: ${JSON.stringify(c.failures)}` : ''})`);
      if (c.failed) notes.push(`- (x, y) ${c.failed} of ${n} subscribers failed to connect: ${JSON.stringify(c.failures)}`);
      await sleep(2000);
      const subscribed = c.ready;

      if (want('x')) {
        await Promise.all(clients.map((cl) => cl.ask({ cmd: 'track', on: true }, 'tracking')));
        const events: { key: string; sent: number; answered: number; measured: boolean }[] = [];
        const warm = 3;
        for (let e = 0; e < settings.events + warm; e++) {
          const sent = now();
          const res = await post(itemBody());
          const answered = now();
          if (res.status < 200 || res.status >= 300) throw new Error(`(x) POST -> ${res.status}: ${res.text.slice(0, 200)}`);
          events.push({ key: idOf((JSON.parse(res.text) as { data: unknown }).data), sent, answered, measured: e >= warm });
          await sleep(250);
        }
        await sleep(3000);
        const times = new Map<string, number[]>();
        for (const cl of clients) {
          const answer = await cl.ask<{ times: Record<string, number[]> }>({ cmd: 'times' }, 'times');
          for (const [k, v] of Object.entries(answer.times)) times.set(k, [...(times.get(k) ?? []), ...v]);
        }
        await Promise.all(clients.map((cl) => cl.ask({ cmd: 'track', on: false }, 'tracking')));
        const fromSend: number[] = [];
        const fromAnswer: number[] = [];
        const lastPerEvent: number[] = [];
        let missing = 0;
        for (const ev of events.filter((x) => x.measured)) {
          const got = times.get(ev.key) ?? [];
          missing += Math.max(0, subscribed - got.length);
          for (const t of got) {
            fromSend.push(t - ev.sent);
            fromAnswer.push(t - ev.answered);
          }
          if (got.length) lastPerEvent.push(Math.max(...got) - ev.sent);
        }
        const postMs = events.filter((x) => x.measured).map((x) => x.answered - x.sent).sort((a, b) => a - b);
        fromSend.sort((a, b) => a - b);
        fromAnswer.sort((a, b) => a - b);
        lastPerEvent.sort((a, b) => a - b);
        const x = {
          subscribers: subscribed, events: settings.events, deliveries: fromSend.length, expected: subscribed * settings.events, missing,
          fromSend: { p50: pct(fromSend, 50), p99: pct(fromSend, 99), max: fromSend[fromSend.length - 1] ?? NaN },
          fromAnswer: { p50: pct(fromAnswer, 50), p99: pct(fromAnswer, 99), min: fromAnswer[0] ?? NaN, max: fromAnswer[fromAnswer.length - 1] ?? NaN },
          lastSubscriber: { p50: pct(lastPerEvent, 50), max: lastPerEvent[lastPerEvent.length - 1] ?? NaN },
          postMs: { p50: pct(postMs, 50), max: postMs[postMs.length - 1] ?? NaN },
        };
        results.x = x;
        lines.push(`| (x) one create to ${fmt(subscribed)} subscribers, ${settings.events} events | from just before the POST: **p50 ${fmt(x.fromSend.p50, 1)} ms, p99 ${fmt(x.fromSend.p99, 1)} ms**; from its answer: p50 ${fmt(x.fromAnswer.p50, 1)} ms, p99 ${fmt(x.fromAnswer.p99, 1)} ms; last subscriber p50 ${fmt(x.lastSubscriber.p50, 1)} ms, max ${fmt(x.lastSubscriber.max, 1)} ms; ${fmt(x.deliveries)} of ${fmt(x.expected)} delivered | POST alone: p50 ${fmt(x.postMs.p50, 1)} ms |`);
        if (missing) notes.push(`- (x) ${missing} of ${x.expected} deliveries did not arrive within 3 s of the last event`);
        log(lines[lines.length - 1]);
      }

      if (want('y')) {
        // The lower rate first: its deliveries are done before the required rate runs.
        for (const rate of [...rates].reverse()) {
          const baseline = baselines.get(rate)!;
          await Promise.all(clients.map((cl) => cl.ask({ cmd: 'reset' }, 'reset')));
          await sleep(2000);
          const rss0 = memKb(pid);
          const clientCpu0 = (await countsOf(clients)).clientCpuSeconds;
          const cpu0 = cpuSeconds(pid);
          const writeStart = performance.now();
          const withSubs = await pacedWrites(post, rate, settings.writeSeconds, pid);
          log(`(y) ${rate}/s, ${subscribed} subscribers: ${fmt(withSubs.okPerSec)} 2xx/s, p50 ${fmt(withSubs.p50Ms, 1)} ms, p99 ${fmt(withSubs.p99Ms, 1)} ms; waiting for the deliveries`);
          // Every subscriber has every row, or nothing moved for 5 s, or BENCH_RT_DRAIN_MAX s passed.
          const expectedRows = withSubs.ok * subscribed;
          const settleStart = performance.now();
          let counts = await countsOf(clients);
          let lastRows = counts.rows;
          let lastMove = performance.now();
          while (counts.rows < expectedRows && performance.now() - settleStart < settings.drainSeconds * 1000 && performance.now() - lastMove < 5000) {
            await sleep(250);
            counts = await countsOf(clients);
            if (counts.rows !== lastRows) { lastRows = counts.rows; lastMove = performance.now(); }
          }
          const drainMs = lastMove - settleStart;
          const deliverySeconds = (lastMove - writeStart) / 1000;
          const serverCpu = cpuSeconds(pid) - cpu0;
          const rss = memKb(pid);
          const y = {
            rate, seconds: settings.writeSeconds, baseline, withSubscribers: withSubs, subscribers: subscribed,
            throughputRatio: withSubs.okPerSec / baseline.okPerSec, p50Ratio: withSubs.p50Ms / baseline.p50Ms, p99Ratio: withSubs.p99Ms / baseline.p99Ms,
            deliveries: {
              expectedRows, rows: counts.rows, messages: counts.messages, minPerSubscriber: counts.minRows, maxPerSubscriber: counts.maxRows, open: counts.open,
              lastDeliveryMsAfterLastAnswer: drainMs, messagesPerSec: counts.messages / deliverySeconds,
              unexpectedCloses: counts.unexpectedCloses, serverErrors: counts.serverErrors, other: counts.other,
            },
            serverCpuSecondsWritesAndDeliveries: serverCpu, clientCpuSeconds: counts.clientCpuSeconds - clientCpu0,
            serverRssKb: { before: rss0.rss, after: rss.rss, peak: rss.hwm }, clientRssMb: counts.clientRssMb,
          };
          results[rate === settings.rate ? 'y' : `y@${rate}`] = y;
          const side = (r: WriteRun) => `${fmt(r.okPerSec)} 2xx/s, p50 ${fmt(r.p50Ms, 1)} ms, p99 ${fmt(r.p99Ms, 1)} ms`;
          const all = counts.rows >= expectedRows;
          lines.push(`| (y) ${rate} POST/s for ${settings.writeSeconds} s: with ${fmt(subscribed)} subscribers vs none | with: ${side(withSubs)}; ${all ? 'every' : '**not every**'} subscriber got every row: ${fmt(counts.minRows)}–${fmt(counts.maxRows)} of ${fmt(withSubs.ok)} each (${fmt(counts.rows)} of ${fmt(expectedRows)} deliveries, last ${fmt(drainMs / 1000, 1)} s after the last answer, ${fmt(y.deliveries.messagesPerSec)} messages/s) | none: ${side(baseline)} | throughput **${fmt(y.throughputRatio, 2)}** (required >= 0.90), p50 ${fmt(y.p50Ratio, 2)}x, p99 ${fmt(y.p99Ratio, 2)}x |`);
          for (const [name, r] of [['none', baseline], ['with', withSubs]] as const) {
            if (r.non2xx || r.errors) notes.push(`- (y) ${rate}/s ${name}: ${r.non2xx} non-2xx (${JSON.stringify(r.statuses)}), ${r.errors} errors${r.errors ? ` (${JSON.stringify(r.errorMessages)})` : ''} of ${r.scheduled}`);
            if (r.lateStarts) notes.push(`- (y) ${rate}/s ${name}: ${r.lateStarts} of ${r.scheduled} requests left the writer more than 5 ms after their time (the writer waited for CPU)`);
          }
          notes.push(`- (y) ${rate}/s: server CPU ${fmt(baseline.serverCpuSeconds, 1)} s for the writes alone; with subscribers ${fmt(serverCpu, 1)} s for the writes and ${fmt(counts.messages)} messages (${fmt((serverCpu - baseline.serverCpuSeconds) / Math.max(1, counts.messages) * 1e6, 1)} µs per message beyond the writes), the subscriber processes ${fmt(y.clientCpuSeconds, 1)} s.`);
          if (!all) notes.push(`- (y) ${rate}/s: ${fmt(expectedRows - counts.rows)} of ${fmt(expectedRows)} deliveries missing when the bench stopped waiting (${fmt((performance.now() - settleStart) / 1000, 1)} s after the last answer; BENCH_RT_DRAIN_MAX=${settings.drainSeconds}); open connections ${counts.open} of ${subscribed}; closes ${JSON.stringify(counts.unexpectedCloses)}`);
          if (Object.keys(counts.serverErrors).length || Object.keys(counts.other).length) notes.push(`- (y) ${rate}/s: server errors ${JSON.stringify(counts.serverErrors)}, other messages ${JSON.stringify(counts.other)}`);
          log(lines[lines.length - 1]);
          if (!all && rate !== settings.rate) {
            // Let the backlog go before the next measurement.
            const waitStart = performance.now();
            while (performance.now() - waitStart < 120_000) {
              await sleep(1000);
              const c2 = await countsOf(clients);
              if (c2.rows >= expectedRows || c2.rows === counts.rows) break;
              counts = c2;
            }
          }
        }
      }
      await Promise.all(clients.map((cl) => cl.ask({ cmd: 'close' }, 'closed')));
    }

    const meta = {
      date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGb: Math.round(totalmem() / 1024 ** 3),
      settings, loadAverageAtStart: Number(load0.toFixed(2)), loadAverageAtEnd: Number(loadavg()[0].toFixed(2)), openFileLimit: limit,
    };
    const table = ['| scenario | service | reference | ratio |', '|---|---|---|---|', ...lines].join('\n');
    const text = [
      `Run ${meta.date}: one service process as \`npm start\` runs it (DATABASE_URL, default WEBSOCKETS_* / REALTIME_* settings, rate limiter off), subscribers in ${settings.clientProcs} \`ws\` client processes (reader user, static token, handshake auth, one subscription each), writes paced from the bench process (${settings.writeSockets} keep-alive sockets, latency from each request's scheduled time); server, Postgres and clients share ${meta.cores} x ${meta.cpu}, ${meta.memoryGb} GiB (1-min load ${meta.loadAverageAtStart} before, ${meta.loadAverageAtEnd} after). Node ${meta.node}; open-file limit ${limit}.`,
      ...(notes.length ? ['', ...notes] : []),
    ].join('\n');
    console.log(`\n${table}\n\n${text}\n`);
    writeFileSync(join(here, 'results-realtime.md'), `# Realtime benchmark results\n\nGenerated by \`BENCH_SCENARIOS=w,x,y npm run bench\` (test/bench/realtime.ts); do not edit by hand.\n\n${table}\n\n${text}\n`);
    writeFileSync(join(here, 'results-realtime.json'), JSON.stringify({ meta, results }, null, 2) + '\n');
    log('wrote test/bench/results-realtime.md and results-realtime.json');
  } catch (err) {
    if (service) console.error(`[bench:realtime] last lines of the service log (${service.logFile}):\n${logTail(service.logFile, 30)}`);
    throw err;
  } finally {
    for (const c of clients) await c.end();
    for (const p of started.splice(0)) await p.stop().catch(() => undefined);
    await query(base.adminUrl, `drop database if exists ${DATABASE} with (force)`).catch(() => undefined);
  }
}
