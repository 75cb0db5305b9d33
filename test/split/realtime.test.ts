/** Realtime across instances (docs/realtime.md > Across instances): two container processes on one Postgres database
 * and one Redis, writes through the functions half (the router's default route), subscribers connected straight to
 * each container and through the router. Every subscriber receives every change it may see exactly once, in commit
 * order per item; a subscriber of a container that was killed resumes on its replacement with `since` and receives
 * exactly what it missed. Runs in the third pass of .ci/run (TEST_DATABASE_URL and REDIS_URL). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareIds } from '../../core/realtime/change.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { Client, until as waitFor, type Msg } from '../realtime/helpers.ts';
import { SPLIT_ENABLED, SPLIT_SKIP_REASON, startSplit, type Split } from './harness.ts';
import { createServices, type Services } from '../../core/services.ts';
import { loadConfig } from '../../core/config.ts';
import { Redis } from 'ioredis';
import { createLambdaHandler } from '../../functions/lambda.ts';
import { jsonEvent } from '../helpers/lambda-event.ts';

const suite = SPLIT_ENABLED ? describe : describe.skip;

const wsOf = (base: string) => `${base.replace('http://', 'ws://')}/websocket`;

/** The create/update/delete messages of `uid`, keyed by item, in arrival order. */
function perItem(c: Client, uid: string): Map<string, Msg[]> {
  const out = new Map<string, Msg[]>();
  for (const m of c.events(uid)) {
    const keys = m.event === 'delete' ? (m.data as unknown[]).map(String) : (m.data as Msg[]).map((r) => String(r.id));
    for (const k of keys) {
      const list = out.get(k) ?? [];
      list.push(m);
      out.set(k, list);
    }
  }
  return out;
}

suite(SPLIT_ENABLED ? 'realtime across instances' : `realtime across instances (skipped: ${SPLIT_SKIP_REASON})`, () => {
  let split: Split;
  let principal: Services;

  beforeAll(async () => {
    split = await startSplit({ containers: 2 });
    const created = await split.req('POST', '/collections', {
      body: {
        collection: 'notes', schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
          { field: 'public', type: 'boolean', schema: { default_value: false } },
        ],
      },
    });
    expect(created.status, created.text).toBe(200);
    // A reader limited to public notes, made through a Services of its own on the same database and Redis.
    principal = await createServices(loadConfig({ ...split.env }), { skipMigrations: true, workers: false });
    await createPrincipal(principal, {
      token: 'public-notes', permissions: [{ collection: 'notes', action: 'read', permissions: { public: { _eq: true } }, fields: ['id', 'title'] }],
    });
  }, 180_000);
  afterAll(async () => {
    await principal?.close();
    await split?.close();
  });

  it('every subscriber on either container receives every change it may see, once, in commit order per item', async () => {
    const subscribers: { c: Client; restricted: boolean }[] = [];
    for (const [i, base] of [split.containers[0].url, split.containers[1].url, split.url].entries()) {
      for (const token of [ADMIN_TOKEN, 'public-notes']) {
        const c = await Client.open(wsOf(base));
        expect(await c.auth(token)).toMatchObject({ status: 'ok' });
        expect(await c.subscribe({ collection: 'notes', uid: 'n', query: { fields: ['id', 'title'] } })).toMatchObject({ event: 'init', data: [] });
        subscribers.push({ c, restricted: token !== ADMIN_TOKEN });
        void i;
      }
    }

    // Ten items written at once, each then updated three times, one after another per item.
    const items = 10;
    const expectedPublic = new Set<string>();
    const ids: string[] = [];
    await Promise.all(Array.from({ length: items }, async (_, n) => {
      const isPublic = n % 2 === 0;
      const res = await split.req('POST', '/items/notes', { body: { title: `note ${n} v0`, public: isPublic } });
      expect(res.status, res.text).toBe(200);
      const id = String(res.body.data.id ?? res.body.data);
      ids.push(id);
      if (isPublic) expectedPublic.add(id);
      for (let v = 1; v <= 3; v++) {
        expect((await split.req('PATCH', `/items/notes/${id}`, { body: { title: `note ${n} v${v}` } })).status).toBe(200);
      }
    }));
    // Then deleted, once every subscriber has its rows (a create or update whose row is gone by the time it is
    // read is not sent: the delete that follows is, docs/realtime.md).
    const before = (restricted: boolean) => (restricted ? 5 * 4 : 10 * 4);
    for (const { c, restricted } of subscribers) {
      await waitFor(() => c.events('n').length >= before(restricted), 30_000, `the creates and updates on a ${restricted ? 'restricted' : 'full'} subscriber`);
    }
    await Promise.all(ids.map(async (id) => expect((await split.req('DELETE', `/items/notes/${id}`)).status).toBe(204)));

    // Every subscriber: 10 (or 5) creates, 30 (15) updates, and the deletes of the rows it was sent.
    const expectedCount = (restricted: boolean) => before(restricted) + (restricted ? 5 : 10);
    for (const { c, restricted } of subscribers) {
      await waitFor(() => c.events('n').length >= expectedCount(restricted), 30_000, `every event on a ${restricted ? 'restricted' : 'full'} subscriber`);
    }
    await new Promise((r) => setTimeout(r, 300));
    for (const { c, restricted } of subscribers) {
      const events = c.events('n');
      expect(events.length).toBe(expectedCount(restricted));
      const ids = events.map((m) => m.id as string);
      expect(new Set(ids).size, 'no duplicates').toBe(ids.length);
      expect([...ids].sort(compareIds), 'in log order').toEqual(ids);
      for (const [key, list] of perItem(c, 'n')) {
        const kinds = list.map((m) => m.event);
        // A note the reader may not see: nothing at all, not even its key.
        expect(!restricted || expectedPublic.has(key), `item ${key} reached a reader who may not see it`).toBe(true);
        expect(kinds, `item ${key}`).toEqual(['create', 'update', 'update', 'update', 'delete']);
      }
      if (restricted) {
        for (const m of events.filter((e) => e.event !== 'delete')) {
          for (const row of m.data as Msg[]) expect(Object.keys(row).sort()).toEqual(['id', 'title']);
        }
      }
    }
    for (const { c } of subscribers) c.close();
  }, 120_000);

  it('a write through a Lambda (the functions half in AWS) reaches subscribers of both containers', async () => {
    const lambdaServices = await createServices(loadConfig({ ...split.env }), { skipMigrations: true, sendEventsAfterCommit: false });
    try {
      const handler = createLambdaHandler(lambdaServices);
      const clients = await Promise.all(split.containers.map(async (p) => {
        const c = await Client.open(wsOf(p.url));
        await c.auth(ADMIN_TOKEN);
        await c.subscribe({ collection: 'notes', uid: 'l', query: { fields: ['id', 'title'] } });
        return c;
      }));
      const res = await handler(jsonEvent('POST', '/items/notes', { title: 'from a lambda' }) as never, { functionName: 'svc', awsRequestId: 'r' } as never) as { statusCode: number; body: string };
      expect(res.statusCode, res.body).toBe(200);
      for (const c of clients) {
        const m = await c.next((x) => x.uid === 'l' && x.event === 'create', 10_000);
        expect(m.data).toEqual([expect.objectContaining({ title: 'from a lambda' })]);
      }
      // The Lambda appended the change itself (its tap) and left the event to the relay, whose container appends it
      // again: the stream holds it twice, and subscribers get it once (dropped by its event id).
      const id = String(JSON.parse(res.body).data.id ?? JSON.parse(res.body).data);
      const redis = new Redis(process.env.REDIS_URL!);
      try {
        const copies = async () => ((await redis.xrange(`svc:${split.redisNamespace}:realtime:changes`, '-', '+')) as [string, string[]][])
          .filter(([, f]) => f[f.indexOf('c') + 1] === 'notes' && f[f.indexOf('k') + 1] === JSON.stringify([Number(id)])).length;
        const deadline = Date.now() + 15_000;
        while ((await copies()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(await copies()).toBe(2);
      } finally {
        redis.disconnect();
      }
      await Promise.all(clients.map((c) => c.call({ type: 'ping' }, 'pong')));
      await new Promise((r) => setTimeout(r, 300));
      for (const c of clients) expect(c.events('l')).toHaveLength(1);
      for (const c of clients) c.close();
    } finally {
      await lambdaServices.close();
    }
  }, 60_000);

  it('a subscriber of a killed container resumes on its replacement with exactly what it missed', async () => {
    const c = await Client.open(wsOf(split.containers[0].url));
    await c.auth(ADMIN_TOKEN);
    await c.subscribe({ collection: 'notes', uid: 'r', query: { fields: ['id', 'title'] } });
    const first = await split.req('POST', '/items/notes', { body: { title: 'before' } });
    const seen = await c.next((m) => m.uid === 'r' && m.event === 'create', 10_000);
    expect(seen.data).toEqual([{ id: first.body.data.id ?? first.body.data, title: 'before' }]);

    await split.killContainer(0);
    await waitFor(() => c.closed !== null, 10_000, 'the socket to close with its container');
    const missed: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await split.req('POST', '/items/notes', { body: { title: `while away ${i}` } });
      expect(res.status).toBe(200);
      missed.push(String(res.body.data.id ?? res.body.data));
    }
    await split.restartContainer(0);

    const back = await Client.open(wsOf(split.containers[0].url));
    await back.auth(ADMIN_TOKEN);
    const replay = await back.subscribe({ collection: 'notes', uid: 'r', query: { fields: ['id', 'title'] }, since: seen.id });
    expect(replay.event).toBe('create');
    await waitFor(() => back.events('r').length >= 5, 10_000, 'the replay');
    const after = await split.req('POST', '/items/notes', { body: { title: 'after' } });
    const live = await back.next((m) => m.uid === 'r' && m.event === 'create' && m.data[0]?.title === 'after', 10_000);
    expect(live.data[0].id).toBe(after.body.data.id ?? after.body.data);
    const creates = back.events('r').filter((m) => m.event === 'create').flatMap((m) => (m.data as Msg[]).map((r) => String(r.id)));
    expect(creates).toEqual([...missed, String(after.body.data.id ?? after.body.data)]);
    expect(back.messages.some((m) => m.event === 'init')).toBe(false);
    back.close();
  }, 120_000);
});
