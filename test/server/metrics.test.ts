/** GET /server/metrics and the HTTP metrics middleware (SPEC.md > Server, metrics), through app.request. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpMetrics } from '../../core/metrics/http-metrics.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createContentModel } from '../helpers/fixtures.ts';
import { createPrincipal } from '../helpers/principals.ts';
import { parseExposition, valueOf, type Sample } from './exposition.ts';

const FIVE = ['http_requests_total', 'http_request_duration_seconds', 'http_active_connections', 'http_request_size_bytes', 'http_response_size_bytes'];

async function scrape(t: TestApp): Promise<{ text: string; samples: Sample[] }> {
  const r = await t.req('GET', '/server/metrics');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return { text: r.body as string, samples: parseExposition(r.body as string) };
}

describe('metrics disabled (METRICS_ENABLED unset)', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(); });
  afterAll(async () => { await t.close(); });

  it('answers 404 with exactly {"error":"Metrics not enabled"}, for admins and anyone else', async () => {
    expect(t.services.metrics).toBeNull();
    for (const token of [undefined, null]) {
      const res = await t.app.request('/server/metrics', { headers: token === null ? {} : { authorization: 'Bearer static-admin-token' } });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe('{"error":"Metrics not enabled"}');
    }
  });
});

describe('metrics enabled', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_ENABLED: 'true' } });
    await createContentModel(t.services);
    await createPrincipal(t.services, { token: 'metrics-reader', permissions: [{ collection: 'posts', action: 'read' }] });
  });
  afterAll(async () => { await t.close(); });

  it('exposes the five HTTP metrics and the process metrics with the default prefix svc_', async () => {
    const { text } = await scrape(t);
    for (const name of FIVE) expect(text).toContain(`# TYPE svc_${name} `);
    expect(text).toContain('# TYPE svc_http_requests_total counter');
    expect(text).toContain('# TYPE svc_http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE svc_http_active_connections gauge');
    expect(text).toMatch(/^svc_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^svc_nodejs_heap_size_used_bytes \d/m);
  });

  it('labels requests with method, route pattern and status code', async () => {
    expect((await t.req('GET', '/items/posts/1')).status).toBe(200);
    expect((await t.req('GET', '/items/posts/2?fields=id')).status).toBe(200);
    expect((await t.req('POST', '/items/posts', { title: 'counted' })).status).toBe(200);
    expect((await t.req('GET', '/items/posts/99999')).status).toBe(403);
    expect((await t.req('GET', '/no/such/route?x=1')).status).toBe(404);
    const { samples } = await scrape(t);
    const count = (labels: Record<string, string>) => valueOf(samples, 'svc_http_requests_total', labels);
    expect(count({ method: 'GET', route: '/items/:collection/:pk', status_code: '200' })).toBe(2);
    expect(count({ method: 'POST', route: '/items/:collection', status_code: '200' })).toBe(1);
    expect(count({ method: 'GET', route: '/items/:collection/:pk', status_code: '403' })).toBe(1);
    // No route pattern: the path without its query string.
    expect(count({ method: 'GET', route: '/no/such/route', status_code: '404' })).toBe(1);
    // The duration histogram carries the same labels and SPEC's buckets.
    const duration = (le: string) => valueOf(samples, 'svc_http_request_duration_seconds_bucket', { method: 'GET', route: '/items/:collection/:pk', status_code: '200', le });
    expect(duration('+Inf')).toBe(2);
    for (const le of ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10']) expect(duration(le)).toBeGreaterThanOrEqual(0);
    expect(valueOf(samples, 'svc_http_request_duration_seconds_count', { method: 'POST', route: '/items/:collection', status_code: '200' })).toBe(1);
  });

  it('labels a request refused by a middleware with the pattern of the route it asked for', async () => {
    expect((await t.req('GET', '/items/posts/1', undefined, { token: 'not-a-real-token' })).status).toBe(401);
    const { samples } = await scrape(t);
    expect(valueOf(samples, 'svc_http_requests_total', { method: 'GET', route: '/items/:collection/:pk', status_code: '401' })).toBe(1);
  });

  it('records the request size from content-length for a POST with a body, never for a GET', async () => {
    const body = JSON.stringify({ title: 'sized', body: 'x'.repeat(1500) });
    const res = await t.app.request('/items/posts', {
      method: 'POST', body,
      headers: { authorization: 'Bearer static-admin-token', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    expect(res.status).toBe(200);
    const { samples } = await scrape(t);
    const sizes = (le: string) => valueOf(samples, 'svc_http_request_size_bytes_bucket', { method: 'POST', route: '/items/:collection', le });
    expect(valueOf(samples, 'svc_http_request_size_bytes_count', { method: 'POST', route: '/items/:collection' })).toBe(1);
    expect(valueOf(samples, 'svc_http_request_size_bytes_sum', { method: 'POST', route: '/items/:collection' })).toBe(Buffer.byteLength(body));
    expect(sizes('1000')).toBe(0);
    expect(sizes('10000')).toBe(1);
    expect(sizes('10000000')).toBe(1);
    expect(valueOf(samples, 'svc_http_request_size_bytes_count', { method: 'GET', route: '/items/:collection/:pk' })).toBeUndefined();
  });

  it('records the response size only when the response carries content-length', async () => {
    // Hono responses built in-process carry no content-length (node-server adds it on the wire: see
    // metrics-socket.test.ts); a response with the header set is recorded.
    const { samples } = await scrape(t);
    expect(valueOf(samples, 'svc_http_response_size_bytes_count', { method: 'GET', route: '/items/:collection/:pk', status_code: '200' })).toBeUndefined();
  });

  it('brings active connections back down after every request, errors included', async () => {
    await t.req('GET', '/items/posts/1');
    await t.req('POST', '/items/posts', '{not json');
    await t.req('GET', '/items/nope/1');
    await Promise.all([t.req('GET', '/items/posts/1'), t.req('GET', '/items/posts/2'), t.req('GET', '/server/ping')]);
    const { samples } = await scrape(t);
    // Only the scrape itself is in flight.
    expect(valueOf(samples, 'svc_http_active_connections')).toBe(1);
  });

  it('is for admins only: 403 FORBIDDEN for a non-admin user and for anonymous callers', async () => {
    const user = await t.req('GET', '/server/metrics', undefined, { token: 'metrics-reader' });
    expect(user.status).toBe(403);
    expect(user.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const anonymous = await t.req('GET', '/server/metrics', undefined, { token: null });
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const bad = await t.req('GET', '/server/metrics', undefined, { token: 'not-a-real-token' });
    expect(bad.status).toBe(401);
  });

  it('keeps a registry per instance: another app in the same process counts only its own requests', async () => {
    const other = await createTestApp({ env: { METRICS_ENABLED: 'true' } });
    try {
      await other.req('GET', '/server/ping');
      const mine = await scrape(t);
      const theirs = await scrape(other);
      expect(valueOf(theirs.samples, 'svc_http_requests_total', { method: 'GET', route: '/server/ping', status_code: '200' })).toBe(1);
      expect(valueOf(theirs.samples, 'svc_http_requests_total', { method: 'POST', route: '/items/:collection', status_code: '200' })).toBeUndefined();
      expect(valueOf(mine.samples, 'svc_http_requests_total', { method: 'POST', route: '/items/:collection', status_code: '200' })).toBeGreaterThan(0);
      // Process metrics appear in both.
      expect(valueOf(theirs.samples, 'svc_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });
});

describe('METRICS_NAME_PREFIX', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp({ env: { METRICS_ENABLED: 'true', METRICS_NAME_PREFIX: 'acme_api_' } }); });
  afterAll(async () => { await t.close(); });

  it('prefixes every HTTP and process metric', async () => {
    await t.req('GET', '/server/ping');
    const { text, samples } = await scrape(t);
    for (const name of FIVE) expect(text).toContain(`# TYPE acme_api_${name} `);
    expect(text).not.toContain('svc_http_');
    expect(valueOf(samples, 'acme_api_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(valueOf(samples, 'acme_api_http_requests_total', { method: 'GET', route: '/server/ping', status_code: '200' })).toBe(1);
  });

  it('counts a value equal to a bucket bound in that bucket (le), cumulatively, and keeps sizes of 0 out', async () => {
    const m = createHttpMetrics({ enabled: true, namePrefix: 'unit_' });
    m.record('GET', '/a', 200, 0.005, 0, 100);
    m.record('GET', '/a', 200, 0.0051, 0, 0);
    m.record('GET', '/a', 200, 11, 0, 10_000_001);
    const samples = parseExposition(await m.registry.metrics());
    const le = (name: string, bound: string) => valueOf(samples, `unit_${name}_bucket`, { method: 'GET', route: '/a', status_code: '200', le: bound });
    expect([le('http_request_duration_seconds', '0.005'), le('http_request_duration_seconds', '0.01'), le('http_request_duration_seconds', '10'), le('http_request_duration_seconds', '+Inf')]).toEqual([1, 2, 2, 3]);
    expect(valueOf(samples, 'unit_http_requests_total', { method: 'GET', route: '/a', status_code: '200' })).toBe(3);
    expect([le('http_response_size_bytes', '100'), le('http_response_size_bytes', '10000000'), le('http_response_size_bytes', '+Inf')]).toEqual([1, 1, 2]);
    expect(valueOf(samples, 'unit_http_response_size_bytes_count', { method: 'GET', route: '/a', status_code: '200' })).toBe(2);
    expect(samples.some((s) => s.name.startsWith('unit_http_request_size_bytes'))).toBe(false);
  });

  it('refuses a prefix that is not a valid metric name', () => {
    expect(() => createHttpMetrics({ enabled: true, namePrefix: 'acme-api_' })).toThrow(/METRICS_NAME_PREFIX/);
  });
});
