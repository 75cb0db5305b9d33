/** The metrics middleware under @hono/node-server (as `npm start` serves): a request is recorded when the Node
 * response closes, with the Content-Length that went on the wire. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { parseExposition, valueOf, type Sample } from './exposition.ts';

let t: TestApp;
let server: ReturnType<typeof serve>;
let base: string;
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  t = await createTestApp({ env: { METRICS_ENABLED: 'true' } });
  await createContentModel(t.services);
  server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

async function scrape(): Promise<Sample[]> {
  const res = await fetch(`${base}/server/metrics`, { headers: auth });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(await res.text());
}

it('records response sizes from the Content-Length on the wire and request sizes from the client', async () => {
  const read = await fetch(`${base}/items/posts/1`, { headers: auth });
  expect(read.status).toBe(200);
  const readLength = Number(read.headers.get('content-length'));
  expect(readLength).toBeGreaterThan(100);
  await read.arrayBuffer();

  const body = JSON.stringify({ title: 'over the wire', body: 'y'.repeat(300) });
  const created = await fetch(`${base}/items/posts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
  expect(created.status).toBe(200);
  await created.arrayBuffer();

  const samples = await scrape();
  const get = { method: 'GET', route: '/items/:collection/:pk', status_code: '200' };
  expect(valueOf(samples, 'svc_http_requests_total', get)).toBe(1);
  expect(valueOf(samples, 'svc_http_response_size_bytes_count', get)).toBe(1);
  expect(valueOf(samples, 'svc_http_response_size_bytes_sum', get)).toBe(readLength);
  expect(valueOf(samples, 'svc_http_request_size_bytes_count', { method: 'GET', route: '/items/:collection/:pk' })).toBeUndefined();
  expect(valueOf(samples, 'svc_http_request_size_bytes_sum', { method: 'POST', route: '/items/:collection' })).toBe(Buffer.byteLength(body));
  expect(valueOf(samples, 'svc_http_response_size_bytes_count', { method: 'POST', route: '/items/:collection', status_code: '200' })).toBe(1);
});

it('counts a request as active until its response is finished, then drops it', async () => {
  await Promise.all(Array.from({ length: 5 }, async (_, i) => (await fetch(`${base}/items/posts/${i + 1}`, { headers: auth })).arrayBuffer()));
  const bad = await fetch(`${base}/items/posts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{oops' });
  expect(bad.status).toBe(400);
  await bad.arrayBuffer();
  const samples = await scrape();
  // Only the scrape itself is in flight.
  expect(valueOf(samples, 'svc_http_active_connections')).toBe(1);
  expect(valueOf(samples, 'svc_http_requests_total', { method: 'POST', route: '/items/:collection', status_code: '400' })).toBe(1);
});
