/** /notify/logs (SPEC.md > Notification module, Notification log status): list with the standard query, one log,
 * stats, cancel only from pending (atomic against the worker's claim), delete unless sending, and who may call
 * them (anonymous 401, a user without permission 403, a user with permissions on svc_notify_logs, admin). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { claimDue } from '../../core/notify/outbox/store.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPrincipal } from '../helpers/principals.ts';

let t: TestApp;
const FAR = '2999-01-01T00:00:00Z';

/** A log of a template send (template-less email logs are direct service mail, admin-only: direct-secrets.test.ts). */
async function insertLog(status: string, extra: { scheduled_at?: string; provider_message_id?: string } = {}): Promise<number> {
  const [row] = await run<{ id: number }>(t.services.database.db,
    `insert into svc_notify_logs (status, template_id, channel, recipients, scheduled_at, provider_message_id, subject_rendered)
     values ($1, 'log-fixture', 'email', '["to@example.com"]', $2, $3, $4) returning id`,
    [status, extra.scheduled_at ?? (status === 'pending' ? FAR : null), extra.provider_message_id ?? null, `subject ${status}`]);
  return Number(row.id);
}

async function statusOf(id: number): Promise<string | undefined> {
  const [row] = await run<{ status: string }>(t.services.database.db, 'select status from svc_notify_logs where id = $1', [id]);
  return row?.status;
}

const ids: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp();
  await run(t.services.database.db, "insert into svc_notify_templates (id, name, status) values ('log-fixture', 'Log fixture', 'published')");
  // Pending logs are scheduled far ahead, so the app's own worker leaves them alone.
  for (const s of ['pending', 'sending', 'sent', 'delivered', 'bounced', 'failed', 'cancelled', 'sent']) ids[s] = await insertLog(s);
  await createPrincipal(t.services, { token: 'logs-plain', permissions: [] });
  await createPrincipal(t.services, { token: 'logs-reader', permissions: [{ collection: 'svc_notify_logs', action: 'read', permissions: { status: { _eq: 'sent' } } }] });
  await createPrincipal(t.services, {
    token: 'logs-operator',
    permissions: [
      { collection: 'svc_notify_logs', action: 'read' },
      { collection: 'svc_notify_logs', action: 'update' },
      { collection: 'svc_notify_logs', action: 'delete' },
    ],
  });
});
afterAll(async () => { await t?.close(); });

describe('GET /notify/logs', () => {
  it('lists logs with the standard query parameters', async () => {
    const all = await t.req('GET', '/notify/logs?limit=-1');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThanOrEqual(8);
    expect(all.body.meta).toBeUndefined();

    const sent = await t.req('GET', '/notify/logs?filter[status][_eq]=sent&fields=id,status&sort=-id&meta=filter_count,total_count');
    expect(sent.status).toBe(200);
    expect(sent.body.data.every((l: any) => l.status === 'sent' && Object.keys(l).sort().join() === 'id,status')).toBe(true);
    expect(sent.body.data.map((l: any) => l.id)).toEqual([...sent.body.data.map((l: any) => l.id)].sort((a: number, b: number) => b - a));
    expect(sent.body.meta.filter_count).toBe(sent.body.data.length);
    expect(sent.body.meta.total_count).toBeGreaterThanOrEqual(8);

    const page = await t.req('GET', '/notify/logs?sort=id&limit=2&page=2&fields=id');
    const first4 = await t.req('GET', '/notify/logs?sort=id&limit=4&fields=id');
    expect(page.body.data).toEqual(first4.body.data.slice(2, 4));
    expect((await t.req('GET', '/notify/logs?sort=id&limit=2&offset=2&fields=id')).body.data).toEqual(page.body.data);
  });

  it('refuses a bad query (400) and an unknown field (403 or 400)', async () => {
    expect((await t.req('GET', '/notify/logs?limit=abc')).status).toBe(400);
    expect([400, 403]).toContain((await t.req('GET', '/notify/logs?filter[nope][_eq]=1')).status);
  });

  it('reads one log; a missing or malformed id is 403 like a missing item', async () => {
    const res = await t.req('GET', `/notify/logs/${ids.sent}?fields=id,status,subject_rendered`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: ids.sent, status: 'sent', subject_rendered: 'subject sent' });
    expect((await t.req('GET', '/notify/logs/999999')).status).toBe(403);
    expect((await t.req('GET', '/notify/logs/abc')).status).toBe(403);
  });
});

describe('GET /notify/logs/stats', () => {
  it('counts logs per status (stats is not taken for an id)', async () => {
    const res = await t.req('GET', '/notify/logs/stats');
    expect(res.status).toBe(200);
    const [row] = await run<{ total: number }>(t.services.database.db, 'select count(*)::int as total from svc_notify_logs');
    const counts = Object.fromEntries((await run<{ status: string; n: number }>(t.services.database.db,
      'select status, count(*)::int as n from svc_notify_logs group by status')).map((r) => [r.status, r.n]));
    expect(res.body.data).toMatchObject({
      total: row.total, sent: counts.sent ?? 0, failed: counts.failed ?? 0, pending: counts.pending ?? 0, cancelled: counts.cancelled ?? 0,
      sending: counts.sending ?? 0, delivered: counts.delivered ?? 0, bounced: counts.bounced ?? 0, rejected: 0,
    });
    expect(res.body.data.sent).toBeGreaterThanOrEqual(2);
  });
});

describe('PATCH /notify/logs/{id}/cancel', () => {
  it('cancels a pending log and answers its id', async () => {
    const id = await insertLog('pending');
    const res = await t.req('PATCH', `/notify/logs/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: id });
    expect(await statusOf(id)).toBe('cancelled');
  });

  it('refuses any other status with 400 naming it', async () => {
    for (const s of ['sending', 'sent', 'failed', 'cancelled', 'delivered']) {
      const res = await t.req('PATCH', `/notify/logs/${ids[s]}/cancel`);
      expect(res.status, s).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PAYLOAD', status: s });
      expect(res.body.errors[0].message).toContain(s);
      expect(await statusOf(ids[s])).toBe(s);
    }
    expect((await t.req('PATCH', '/notify/logs/999999/cancel')).status).toBe(403);
  });

  it('a cancel racing a worker claim wins or loses cleanly', async () => {
    const due = '2100-01-01T00:00:00Z';
    const outcomes = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const id = await insertLog('pending', { scheduled_at: due });
      const claim = () => claimDue(t.services.database.db, new Date('2100-01-02T00:00:00Z'), 10, 'test-worker');
      const cancel = () => t.req('PATCH', `/notify/logs/${id}/cancel`);
      // Started in alternating order; on Postgres the two run on separate connections.
      const [claimed, res] = i % 2 === 0
        ? await Promise.all([claim(), cancel()])
        : await Promise.all([cancel(), claim()]).then(([r, c]) => [c, r] as const);
      const final = await statusOf(id);
      const mine = claimed.filter((l) => Number(l.id) === id);
      if (res.status === 200) {
        expect(mine).toHaveLength(0);
        expect(final).toBe('cancelled');
        outcomes.add('cancel won');
      } else {
        expect(res.status).toBe(400);
        expect(res.body.errors[0].extensions.status).toBe('sending');
        expect(mine).toHaveLength(1);
        expect(final).toBe('sending');
        outcomes.add('claim won');
      }
      // Nothing else due is left behind for the next round.
      await run(t.services.database.db, "update svc_notify_logs set status = 'failed' where id = $1 and status = 'sending'", [id]);
    }
    expect(outcomes.size).toBeGreaterThanOrEqual(1);
  });
});

describe('DELETE /notify/logs/{id}', () => {
  it('deletes a log (204) and keeps its delivery events with log_id null', async () => {
    const id = await insertLog('delivered', { provider_message_id: 'del-1' });
    await run(t.services.database.db, "insert into svc_notify_delivery_events (log_id, provider_message_id, event, provider_event_id) values ($1, 'del-1', 'delivered', 'test:del-1')", [id]);
    const res = await t.req('DELETE', `/notify/logs/${id}`);
    expect(res.status).toBe(204);
    expect(await statusOf(id)).toBeUndefined();
    expect((await t.req('GET', `/notify/logs/${id}`)).status).toBe(403);
    const [ev] = await run<{ log_id: number | null }>(t.services.database.db, "select log_id from svc_notify_delivery_events where provider_event_id = 'test:del-1'");
    expect(ev.log_id).toBeNull();
  });

  it('refuses a log in sending (400) and a missing one (403)', async () => {
    const res = await t.req('DELETE', `/notify/logs/${ids.sending}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD');
    expect(await statusOf(ids.sending)).toBe('sending');
    expect((await t.req('DELETE', '/notify/logs/999999')).status).toBe(403);
  });
});

describe('who may call the log endpoints', () => {
  const routes = (id: number): [string, string][] => [
    ['GET', '/notify/logs'], ['GET', '/notify/logs/stats'], ['GET', `/notify/logs/${id}`],
    ['PATCH', `/notify/logs/${id}/cancel`], ['DELETE', `/notify/logs/${id}`],
  ];

  it('anonymous callers get 401, users without permission 403, and nothing changes', async () => {
    const id = await insertLog('pending');
    for (const [method, path] of routes(id)) {
      expect((await t.req(method, path, undefined, { token: null })).status, `${method} ${path}`).toBe(401);
      expect((await t.req(method, path, undefined, { token: 'logs-plain' })).status, `${method} ${path}`).toBe(403);
    }
    expect(await statusOf(id)).toBe('pending');
  });

  it('read permission with a row filter: lists, reads and counts only the permitted rows, and cannot cancel or delete', async () => {
    const list = await t.req('GET', '/notify/logs?limit=-1', undefined, { token: 'logs-reader' });
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThanOrEqual(2);
    expect(list.body.data.every((l: any) => l.status === 'sent')).toBe(true);
    expect((await t.req('GET', `/notify/logs/${ids.sent}`, undefined, { token: 'logs-reader' })).status).toBe(200);
    expect((await t.req('GET', `/notify/logs/${ids.failed}`, undefined, { token: 'logs-reader' })).status).toBe(403);
    const stats = await t.req('GET', '/notify/logs/stats', undefined, { token: 'logs-reader' });
    expect(stats.status).toBe(200);
    expect(stats.body.data).toMatchObject({ total: list.body.data.length, sent: list.body.data.length, failed: 0, pending: 0 });
    const id = await insertLog('pending');
    expect((await t.req('PATCH', `/notify/logs/${id}/cancel`, undefined, { token: 'logs-reader' })).status).toBe(403);
    expect((await t.req('DELETE', `/notify/logs/${ids.sent}`, undefined, { token: 'logs-reader' })).status).toBe(403);
    expect(await statusOf(id)).toBe('pending');
  });

  it('update and delete permissions allow cancel and delete', async () => {
    const id = await insertLog('pending');
    expect((await t.req('PATCH', `/notify/logs/${id}/cancel`, undefined, { token: 'logs-operator' })).status).toBe(200);
    expect((await t.req('DELETE', `/notify/logs/${id}`, undefined, { token: 'logs-operator' })).status).toBe(204);
    expect(await statusOf(id)).toBeUndefined();
  });
});
