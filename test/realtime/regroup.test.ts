/** The hub's move of a connection to the Public role after its credential failed (`public` auth mode), step by
 * step: a real database and the real hub, with an in-process log the test appends to, so the window between the
 * auth error and the move (where the connection holds no credential and is delivered nothing) is held open for as
 * long as the test likes. What committed in that window reaches the connection after the move, read with the Public
 * role's rights; when the log no longer keeps it, the connection is sent `resync` and the rows as they are now. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Accountability } from '../../core/access/accountability.ts';
import { authenticate } from '../../core/auth/authenticate.ts';
import { run } from '../../core/db/database.ts';
import { RealtimeHub, type RealtimeClient } from '../../core/realtime/hub.ts';
import { MemoryChangeLog } from '../../core/realtime/log.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

const META = { ip: null, userAgent: null, origin: null };
const MEMBER_TOKEN = 'regroup-member';

type Msg = Record<string, any>;

/** A connection as the WebSocket and SSE transports are to the hub: who it is now, and what it was sent. */
class Connection implements RealtimeClient {
  readonly sent: Msg[] = [];
  constructor(public accountability: Accountability | null) {}
  send(message: Record<string, unknown>): void {
    this.sent.push(JSON.parse(JSON.stringify(message)) as Msg);
  }
}

let t: TestApp;
let member: Accountability;
let publicRole: Accountability;
let seq = 0;

async function insertNote(title: string, status: string): Promise<number> {
  const rows = await run<{ id: number }>(t.services.database.db, 'insert into notes (title, secret, status) values ($1, $2, $3) returning id', [title, `${title} secret`, status]);
  return rows[0].id;
}

/** What the transaction's tap appends for a write. */
const created = (log: MemoryChangeLog, ...keys: number[]) => log.append(keys.map((k) => ({ event: `regroup-${++seq}`, collection: 'notes', action: 'create' as const, keys: [k] })));

async function subscribed(retained: number): Promise<{ hub: RealtimeHub; log: MemoryChangeLog; conn: Connection }> {
  const log = new MemoryChangeLog({ ms: 600_000, events: retained });
  const hub = new RealtimeHub(t.services, log, { maxSubscriptions: 10 });
  hub.start();
  const conn = new Connection(member);
  await hub.subscribe(conn, { collection: 'notes', query: { fields: ['*'], sort: ['id'] }, uid: 'n' });
  expect(conn.sent.map((m) => m.event)).toEqual(['init']);
  conn.sent.length = 0;
  return { hub, log, conn };
}

/** The credential fails (the transport drops it: nothing is delivered), then the connection goes on as the Public
 * role, as container/realtime/websocket.ts does in `public` mode. */
const lose = (conn: Connection) => { conn.accountability = null; };
const goPublic = (hub: RealtimeHub, conn: Connection, catchUp: boolean) =>
  hub.regroup(conn, publicRole, () => { conn.accountability = publicRole; }, { catchUp });

describe('realtime: a connection that goes on as the Public role', () => {
  beforeAll(async () => {
    t = await createTestApp({ env: { WEBSOCKETS_REST_AUTH: 'public' } });
    const db = t.services.database.db;
    await run(db, "create table notes (id serial primary key, title varchar(255), secret varchar(255), status varchar(32) default 'draft')");
    await run(db, "insert into svc_collections (collection) values ('notes')");
    await t.services.schema.invalidate();
    await createPrincipal(t.services, { token: MEMBER_TOKEN, permissions: [{ collection: 'notes', action: 'read' }] });
    const [{ policy }] = await run<{ policy: string }>(db, 'select a.policy from svc_settings s join svc_access a on a.role = s.public_role where s.id = 1');
    const granted = await t.req('POST', '/permissions', { policy, collection: 'notes', action: 'read', fields: ['id', 'title'], permissions: { status: { _eq: 'published' } } });
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    member = await authenticate(t.services, MEMBER_TOKEN, META);
    publicRole = await authenticate(t.services, null, META);
    expect(member.user).not.toBeNull();
    expect(publicRole.user).toBeNull();
  });

  afterAll(async () => {
    await t?.close();
  });

  it.each([
    { catchUp: true, expected: 'sent after the move, with the Public role\'s fields, and not the draft' },
    { catchUp: false, expected: 'lost (what the move did before it caught up)' },
  ])('a change committed between the auth error and the move, catchUp $catchUp: $expected', async ({ catchUp }) => {
    const { hub, log, conn } = await subscribed(1000);
    lose(conn);
    const pub = await insertNote('window published', 'published');
    const draft = await insertNote('window draft', 'draft');
    await created(log, pub, draft);
    await hub.idle();
    expect(conn.sent, 'nothing is delivered without a credential').toEqual([]);

    await goPublic(hub, conn, catchUp);
    await hub.idle();
    if (catchUp) {
      expect(conn.sent.map((m) => [m.event, m.data])).toEqual([['create', [{ id: pub, title: 'window published' }]]]);
    } else {
      expect(conn.sent).toEqual([]);
    }

    // Live changes follow either way, as the Public role sees them.
    const later = await insertNote('later', 'published');
    await created(log, later);
    await hub.idle();
    expect(conn.sent.at(-1)).toMatchObject({ event: 'create', data: [{ id: later, title: 'later' }] });
    hub.drop(conn);
  });

  it('when the log no longer keeps what it missed: resync, then the rows as the Public role reads them now, then live changes', async () => {
    const { hub, log, conn } = await subscribed(5);
    lose(conn);
    const missed = await insertNote('missed published', 'published');
    await insertNote('missed draft', 'draft');
    // More changes than the log keeps (ones of other rows count too): the subscription's cursor is dropped.
    await created(log, missed);
    for (let i = 0; i < 8; i++) await created(log, missed);
    await hub.idle();
    expect(conn.sent).toEqual([]);

    await goPublic(hub, conn, true);
    await hub.idle();
    expect(conn.sent.map((m) => m.event)).toEqual(['resync', 'init']);
    expect(conn.sent[0]).toMatchObject({ type: 'subscription', uid: 'n' });
    // The init is what REST answers the Public role for the same query.
    const rest = await t.req('GET', '/items/notes?fields=*&sort=id&limit=-1', undefined, { token: null });
    expect(rest.status).toBe(200);
    expect(rest.body.data.some((row: { id: number }) => row.id === missed)).toBe(true);
    expect(conn.sent[1]).toMatchObject({ type: 'subscription', uid: 'n' });
    expect(conn.sent[1].data).toEqual(rest.body.data);

    const later = await insertNote('after resync', 'published');
    await created(log, later);
    await hub.idle();
    expect(conn.sent.slice(2).map((m) => [m.event, m.data])).toEqual([['create', [{ id: later, title: 'after resync' }]]]);
    hub.drop(conn);
  });
});
