/** The delivery webhook's own rate-limit bucket (RATE_LIMITER_WEBHOOK_POINTS / _DURATION, default 100 per 1 s per
 * client IP): over it, 429 REQUESTS_EXCEEDED with Retry-After, whatever the key; other anonymous routes keep
 * counting in the per-IP bucket. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRateLimitConfig } from '../../core/ratelimit/config.ts';
import { onSecurityEvent, type SecurityEvent } from '../../core/events/security.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_WEBHOOK_POINTS: '3', RATE_LIMITER_WEBHOOK_DURATION: '60', RATE_LIMITER_POINTS: '1000' } });
});
afterAll(async () => { await t?.close(); });

describe('webhook rate limit', () => {
  it('defaults to 100 per second', () => {
    expect(parseRateLimitConfig({}).buckets.webhook).toEqual({ points: 100, duration: 1 });
  });

  it('answers 429 in the SPEC shape once the bucket is used up', async () => {
    const seen: SecurityEvent[] = [];
    const off = onSecurityEvent((e) => { seen.push(e); });
    const post = (key: string) => t.req('POST', `/notify/webhooks/${key}`, '{}', { token: null, headers: { 'x-forwarded-for': '10.9.9.9' } });
    expect((await post('gateway_mail')).status).toBe(401);
    expect((await post('cloud_mail')).status).toBe(401);
    expect((await post('nope')).status).toBe(404);
    const res = await post('gateway_mail');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.body.errors[0]).toMatchObject({ message: 'Hit rate limit', extensions: { code: 'REQUESTS_EXCEEDED', limit: 3 } });
    expect(typeof res.body.errors[0].extensions.reset).toBe('string');
    off();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: 'RATE_LIMIT_TRIGGERED', severity: 'warning', details: { limiter: 'endpoint' } });
    // Other anonymous routes are not counted in the webhook bucket.
    expect((await t.req('GET', '/server/ping', undefined, { token: null })).status).toBe(200);
  });
});
