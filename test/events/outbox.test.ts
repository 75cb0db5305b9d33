/** The action event outbox through the real HTTP app (standalone, the in-process queue): an event with a receiver is
 * written in the transaction of its change and deleted once sent; an event nobody can receive is never written; a
 * refused (rolled-back) change leaves no row and runs no hook; a row its writer never sent is sent by the relay with
 * its own event id, and a handler that already ran for that id is not run again. */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { InvalidPayloadError } from '../../core/errors.ts';
import type { ActionEvent } from '../../core/events/bus.ts';
import { insertEvents } from '../../core/events/outbox.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';

let t: TestApp;
const off: (() => void)[] = [];
const q = <R = any>(sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);

beforeAll(async () => {
  t = await createTestApp({ env: { EVENTS_RELAY_INTERVAL: '50ms' } });
  await createContentModel(t.services);
});
afterEach(() => { for (const f of off.splice(0)) f(); });
afterAll(async () => { await t.close(); });

/** The last id the outbox's identity handed out (null before its first row). */
async function lastRowId(): Promise<number | null> {
  const [row] = await q<{ last: string | null }>(`select pg_sequence_last_value(pg_get_serial_sequence('svc_event_outbox', 'id')) as last`);
  return row.last === null ? null : Number(row.last);
}
const rows = async () => Number((await q<{ n: number }>('select count(*)::int as n from svc_event_outbox'))[0].n);

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('action event outbox', () => {
  it('writes nothing for an event nobody can receive', async () => {
    const before = await lastRowId();
    const res = await t.req('POST', '/items/tags', { id: 'unheard', label: 'U' });
    expect(res.status).toBe(200);
    const patched = await t.req('PATCH', '/items/tags/unheard', { label: 'V' });
    expect(patched.status).toBe(200);
    await t.services.events.drain();
    expect(await lastRowId()).toBe(before);
  });

  it('writes the event with its change and deletes the row once sent', async () => {
    const seen: string[] = [];
    off.push(t.services.events.action('tags.items.create', (meta, { event }) => { seen.push(`${String(meta.key)} ${event.id}`); }));
    const before = await lastRowId() ?? 0;
    const res = await t.req('POST', '/items/tags', { id: 'heard', label: 'H' });
    expect(res.status).toBe(200);
    await until(() => seen.length === 1);
    expect(seen[0]).toMatch(/^heard [0-9a-f-]{36}$/);
    expect(await lastRowId()).toBeGreaterThan(before);
    await until(async () => (await rows()) === 0);
  });

  it('leaves no row and runs no hook for a refused change', async () => {
    const seen: unknown[] = [];
    off.push(t.services.events.action('tags.items.create', (meta) => { seen.push(meta.key); }));
    off.push(t.services.events.filter('tags.items.create', (payload: any) => {
      if (payload?.id === 'refused') throw new InvalidPayloadError('no');
      return undefined;
    }));
    const before = await lastRowId();
    const res = await t.req('POST', '/items/tags', { id: 'refused', label: 'R' });
    expect(res.status).toBe(400);
    await t.services.events.drain();
    expect(await lastRowId()).toBe(before);
    expect(seen).toEqual([]);
  });

  it('relays a row its writer never sent, with its own id, and skips a handler that already ran for it', async () => {
    const runs: string[] = [];
    off.push(t.services.events.action('outbox.probe', (_meta, { event }) => { runs.push(event.id); }));
    // Rows as a process that died after commit left them: due at once.
    const fresh: ActionEvent = { id: randomUUID(), event: 'outbox.probe', meta: { n: 1 }, accountability: null, emittedAt: new Date().toISOString() };
    const handled: ActionEvent = { ...fresh, id: randomUUID(), meta: { n: 2 } };
    // `handled` was delivered and its handler ran before the crash; only the delete was lost.
    await t.services.events.dispatch(handled);
    expect(runs).toEqual([handled.id]);
    await insertEvents(t.services.database.db, [fresh, handled], 0);
    await until(async () => (await rows()) === 0);
    await until(() => runs.length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(runs).toEqual([handled.id, fresh.id]);
  });

  it('is no collection: no API reads it, not even an admin\'s (it carries write payloads on their way)', async () => {
    const items = await t.req('GET', '/items/svc_event_outbox');
    expect(items.status).toBe(404);
    expect(items.body.errors[0].extensions.code).toBe('COLLECTION_NOT_FOUND');
    const fields = await t.req('GET', '/fields/svc_event_outbox');
    expect(fields.status).not.toBe(200);
    const gql = await t.req('POST', '/graphql/system', { query: '{ __type(name: "svc_event_outbox") { name } }' });
    expect(gql.body.data?.__type ?? null).toBeNull();
  });
});
