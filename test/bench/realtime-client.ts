/** A subscriber process for the realtime rows of the benchmark (test/bench/realtime.ts): holds many WebSocket
 * connections (package `ws`) to the service's /websocket, driven by JSON lines on stdin, answering JSON lines on
 * stdout. Each connection speaks the protocol of docs (realtime contract): `auth` with a static token (handshake
 * mode, the default), then one `subscribe` to a collection; it answers the server's `ping` with `pong` and counts
 * the rows of every `create` message.
 *
 * Commands (one JSON object a line):
 *   {cmd:'connect', url, token, collection, count, concurrency}  opens `count` connections, at most `concurrency`
 *        handshakes in flight; answers {ev:'connected', ready, failed, failures, openMs, readyMs} once every
 *        connection is subscribed (init received) or failed. openMs / readyMs: from the command to the last open /
 *        to the last init.
 *   {cmd:'track', on}  while on, records for every create message the receive time (performance.timeOrigin +
 *        performance.now(), comparable across processes of this machine) under each row's key.
 *   {cmd:'times'}      answers {ev:'times', times: {key: [ms, ...]}} and forgets them.
 *   {cmd:'reset'}      zeroes the per-connection counts.
 *   {cmd:'counts'}     answers {ev:'counts', ...} (rows and messages per connection, min/max, closes, errors).
 *   {cmd:'close'}      closes every connection, answers {ev:'closed'}.
 * Prints {ev:'ready'} once started. */
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

interface Sub {
  ws: WebSocket;
  ready: boolean;
  rows: number;
  messages: number;
}

const subs: Sub[] = [];
let tracking = false;
let times = new Map<string, number[]>();
let unexpectedCloses = new Map<string, number>();
let serverErrors = new Map<string, number>();
let other = new Map<string, number>();
let closing = false;
let sampled = 0;
const CREATE = Buffer.from('"event":"create"');
const ROW = Buffer.from('{"id":');

const say = (o: unknown) => process.stdout.write(JSON.stringify(o) + '\n');
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
const now = () => performance.timeOrigin + performance.now();

interface Msg { type?: string; event?: string; status?: string; data?: unknown; uid?: string; error?: { code?: string; message?: string } }

function openOne(url: string, token: string, collection: string, started: number, stats: { lastOpen: number; lastReady: number }): Promise<string | null> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { skipUTF8Validation: true });
    const sub: Sub = { ws, ready: false, rows: 0, messages: 0 };
    let settled = false;
    const done = (failure: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(failure);
    };
    const timer = setTimeout(() => { done('timeout (30 s) before init'); ws.terminate(); }, 30_000);
    ws.on('open', () => {
      stats.lastOpen = Math.max(stats.lastOpen, performance.now() - started);
      ws.send(JSON.stringify({ type: 'auth', access_token: token }));
    });
    ws.on('message', (raw: WebSocket.RawData) => {
      // The fast path, while no receive times are recorded: a create message is counted without JSON.parse, its
      // rows by their opening `{"id":` (the collection's first field); one message in 1,000 is parsed to check that.
      if (!tracking && Buffer.isBuffer(raw) && raw.indexOf(CREATE) !== -1 && (++sampled % 1000 !== 0)) {
        sub.messages++;
        for (let at = raw.indexOf(ROW); at !== -1; at = raw.indexOf(ROW, at + ROW.length)) sub.rows++;
        return;
      }
      const msg = JSON.parse(raw.toString()) as Msg;
      if (Buffer.isBuffer(raw) && msg.type === 'subscription' && msg.event === 'create' && Array.isArray(msg.data)) {
        let counted = 0;
        for (let at = raw.indexOf(ROW); at !== -1; at = raw.indexOf(ROW, at + ROW.length)) counted++;
        if (counted !== msg.data.length) bump(other, 'fast-path row count differs from the parsed message');
      }
      if (msg.type === 'subscription') {
        if (msg.event === 'create' && Array.isArray(msg.data)) {
          sub.messages++;
          sub.rows += msg.data.length;
          if (tracking) {
            const t = now();
            for (const row of msg.data as { id?: unknown }[]) {
              const key = String(row.id);
              const list = times.get(key);
              if (list) list.push(t);
              else times.set(key, [t]);
            }
          }
        } else if (msg.event === 'init') {
          if (!sub.ready) {
            sub.ready = true;
            subs.push(sub);
            stats.lastReady = Math.max(stats.lastReady, performance.now() - started);
            done(null);
          }
        } else bump(other, `subscription:${msg.event}`);
      } else if (msg.type === 'ping') {
        ws.send('{"type":"pong"}');
      } else if (msg.type === 'auth') {
        if (msg.status === 'ok') {
          if (!sub.ready) ws.send(JSON.stringify({ type: 'subscribe', collection, uid: 's' }));
        } else {
          bump(serverErrors, `auth:${msg.error?.code ?? '?'}`);
          done(`auth ${msg.error?.code ?? '?'}: ${msg.error?.message ?? ''}`);
        }
      } else if (msg.status === 'error') {
        bump(serverErrors, `${msg.type}:${msg.error?.code ?? '?'}`);
        if (!sub.ready) done(`${msg.type} ${msg.error?.code ?? '?'}: ${msg.error?.message ?? ''}`);
      } else if (msg.type !== 'pong') bump(other, String(msg.type));
    });
    ws.on('close', (code: number, reason: Buffer) => {
      if (!closing) bump(unexpectedCloses, `${code}${reason.length ? ` ${reason.toString()}` : ''}`);
      done(`closed ${code} ${reason.toString()}`);
    });
    ws.on('error', (err: Error) => done(`error ${err.message}`));
  });
}

async function connect(c: { url: string; token: string; collection: string; count: number; concurrency: number}) {
  closing = false;
  const started = performance.now();
  const stats = { lastOpen: 0, lastReady: 0 };
  const failures = new Map<string, number>();
  let next = 0;
  let ready = 0;
  await Promise.all(Array.from({ length: Math.min(c.concurrency, c.count) }, async () => {
    while (next < c.count) {
      next++;
      const failure = await openOne(c.url, c.token, c.collection, started, stats);
      if (failure === null) ready++;
      else bump(failures, failure.slice(0, 120));
    }
  }));
  say({ ev: 'connected', ready, failed: c.count - ready, failures: Object.fromEntries(failures), openMs: stats.lastOpen, readyMs: stats.lastReady });
}

function counts() {
  let min = Infinity;
  let max = 0;
  let rows = 0;
  let messages = 0;
  let open = 0;
  for (const s of subs) {
    min = Math.min(min, s.rows);
    max = Math.max(max, s.rows);
    rows += s.rows;
    messages += s.messages;
    if (s.ws.readyState === WebSocket.OPEN) open++;
  }
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  say({
    ev: 'counts', connections: subs.length, open, rows, messages, minRows: subs.length ? min : 0, maxRows: max,
    unexpectedCloses: Object.fromEntries(unexpectedCloses), serverErrors: Object.fromEntries(serverErrors), other: Object.fromEntries(other),
    rssMb: Math.round(mem.rss / 2 ** 20), cpuSeconds: (cpu.user + cpu.system) / 1e6,
  });
}

async function closeAll() {
  closing = true;
  await Promise.all(subs.splice(0).map((s) => new Promise<void>((resolve) => {
    if (s.ws.readyState === WebSocket.CLOSED) { resolve(); return; }
    const timer = setTimeout(() => { s.ws.terminate(); resolve(); }, 5000);
    s.ws.once('close', () => { clearTimeout(timer); resolve(); });
    s.ws.close(1000);
  })));
  unexpectedCloses = new Map();
  serverErrors = new Map();
  other = new Map();
  say({ ev: 'closed' });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const c = JSON.parse(line) as { cmd: string; on?: boolean; url: string; token: string; collection: string; count: number; concurrency: number };
  if (c.cmd === 'connect') void connect(c);
  else if (c.cmd === 'track') { tracking = c.on === true; say({ ev: 'tracking' }); }
  else if (c.cmd === 'times') { say({ ev: 'times', times: Object.fromEntries(times) }); times = new Map(); }
  else if (c.cmd === 'reset') {
    for (const s of subs) { s.rows = 0; s.messages = 0; }
    say({ ev: 'reset' });
  } else if (c.cmd === 'counts') counts();
  else if (c.cmd === 'close') void closeAll();
});
lines.on('close', () => {
  for (const s of subs) s.ws.terminate();
  process.exit(0);
});
say({ ev: 'ready' });
