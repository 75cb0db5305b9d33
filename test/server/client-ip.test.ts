/** The client address (functions/http/client-ip.ts) under each TRUST_PROXY mode, observed through the real
 * app: with RATE_LIMITER_POINTS=1 the second anonymous request from one address is limited and the
 * RATE_LIMIT_TRIGGERED event names the address the server resolved. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../../core/ratelimit/config.ts';
import { onSecurityEvent, type SecurityEvent } from '../../core/events/security.ts';
import { resolveClientIp } from '../../functions/http/client-ip.ts';
import type { Hono } from 'hono';
import { createStandaloneApp } from '../../container/app.ts';
import type { AppEnv } from '../../functions/http/env.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const events: SecurityEvent[] = [];
const stop = onSecurityEvent((e) => { events.push(e); });
afterAll(() => stop());

describe('resolveClientIp', () => {
  const xff = '198.51.100.1, 10.0.0.5, 192.168.1.2';
  const cases: Array<[string | undefined, string | null, string | undefined, string | null]> = [
    // [TRUST_PROXY, peer, X-Forwarded-For, client]
    [undefined, '127.0.0.1', xff, '198.51.100.1'],
    [undefined, '127.0.0.1', '198.51.100.1, 203.0.113.9, 10.0.0.5', '203.0.113.9'],
    [undefined, '203.0.113.50', xff, '203.0.113.50'],
    [undefined, '::ffff:10.1.1.1', '198.51.100.1', '198.51.100.1'],
    [undefined, '::ffff:203.0.113.7', undefined, '203.0.113.7'],
    [undefined, '::1', '2001:db8::5', '2001:db8::5'],
    [undefined, 'fd00::1', '198.51.100.1', '198.51.100.1'],
    [undefined, '127.0.0.1', 'not-an-ip, 10.0.0.5', '10.0.0.5'],
    [undefined, '127.0.0.1', '', '127.0.0.1'],
    ['false', '127.0.0.1', xff, '127.0.0.1'],
    ['0', '127.0.0.1', xff, '127.0.0.1'],
    ['true', '203.0.113.50', xff, '198.51.100.1'],
    ['1', '203.0.113.50', xff, '192.168.1.2'],
    ['2', '203.0.113.50', xff, '10.0.0.5'],
    ['5', '203.0.113.50', xff, '198.51.100.1'],
    ['203.0.113.0/24', '203.0.113.50', xff, '192.168.1.2'],
    ['203.0.113.0/24, 192.168.0.0/16', '203.0.113.50', xff, '10.0.0.5'],
    ['203.0.113.50', '203.0.113.51', xff, '203.0.113.51'],
    [undefined, null, xff, null],
  ];
  it.each(cases)('TRUST_PROXY=%s peer %s forwarded-for "%s" -> %s', (trust, peer, forwarded, expected) => {
    expect(resolveClientIp(peer, forwarded, parseTrustProxy(trust))).toBe(expected);
  });

  it('rejects TRUST_PROXY values that are neither a flag, a hop count nor networks', () => {
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('proxy.internal')).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('-1')).toThrow(/TRUST_PROXY/);
    expect(parseTrustProxy('TRUE')).toEqual({ mode: 'all' });
    expect(parseTrustProxy(' 3 ')).toEqual({ mode: 'hops', hops: 3 });
    expect(parseTrustProxy(undefined)).toMatchObject({ mode: 'networks', entries: ['127.0.0.1/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'] });
  });
});

describe('the client IP the app counts and records', () => {
  let base: TestApp | undefined;
  afterAll(async () => { await base?.close(); });

  /** The real app under a TRUST_PROXY setting (services copied with that config: fresh rate-limit counters). */
  async function appWith(trustProxy?: string): Promise<{ app: Hono<AppEnv> }> {
    base ??= await createTestApp({ env: { RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_POINTS: '1', RATE_LIMITER_DURATION: '60' } });
    const config = { ...base.services.config, trustProxy: parseTrustProxy(trustProxy) };
    return { app: createStandaloneApp({ ...base.services, config }) };
  }

  /** Sends two anonymous requests and returns the IP of the limit they trigger. */
  async function seenIp(send: () => Response | Promise<Response>): Promise<string | null> {
    events.length = 0;
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(429);
    expect(events).toHaveLength(1);
    return events[0].details.ip;
  }

  const nodeEnv = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

  it('uses the socket address, and X-Forwarded-For only from a trusted peer (default: private ranges)', async () => {
    const t = await appWith();
    const ping = (peer: string, xff: string) => () => t.app.request('/server/ping', { headers: { 'x-forwarded-for': xff } }, nodeEnv(peer));
    expect(await seenIp(ping('10.0.0.9', '198.51.100.30'))).toBe('198.51.100.30');
    expect(await seenIp(ping('203.0.113.31', '198.51.100.31'))).toBe('203.0.113.31');
  });

  it('honours a CIDR list, a hop count, true and false', async () => {
    const list = await appWith('203.0.113.0/24');
    expect(await seenIp(() => list.app.request('/server/ping', { headers: { 'x-forwarded-for': '198.51.100.40, 10.0.0.1' } }, nodeEnv('203.0.113.1')))).toBe('10.0.0.1');
    const hops = await appWith('2');
    expect(await seenIp(() => hops.app.request('/server/ping', { headers: { 'x-forwarded-for': '198.51.100.41, 198.51.100.42, 198.51.100.43' } }, nodeEnv('203.0.113.1')))).toBe('198.51.100.42');
    const all = await appWith('true');
    expect(await seenIp(() => all.app.request('/server/ping', { headers: { 'x-forwarded-for': '198.51.100.44, 198.51.100.45' } }, nodeEnv('203.0.113.2')))).toBe('198.51.100.44');
    const none = await appWith('false');
    expect(await seenIp(() => none.app.request('/server/ping', { headers: { 'x-forwarded-for': '198.51.100.46' } }, nodeEnv('10.0.0.7')))).toBe('10.0.0.7');
  });

  it('takes API Gateway sourceIp on Lambda as the peer', async () => {
    const t = await appWith();
    const lambdaEnv = { requestContext: { http: { sourceIp: '198.51.100.50' } } };
    expect(await seenIp(() => t.app.request('/server/ping', { headers: { 'x-forwarded-for': '1.2.3.4' } }, lambdaEnv))).toBe('198.51.100.50');
  });

  it('treats in-process requests (no socket) as 127.0.0.1', async () => {
    const t = await appWith();
    expect(await seenIp(() => t.app.request('/server/ping'))).toBe('127.0.0.1');
  });

  it('reads the peer of a real socket under @hono/node-server', async () => {
    const t = await appWith('false');
    const server = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 });
    try {
      await new Promise<void>((resolve) => { if (server.listening) resolve(); else server.once('listening', () => resolve()); });
      const { port } = server.address() as AddressInfo;
      const ping = () => fetch(`http://127.0.0.1:${port}/server/ping`, { headers: { 'x-forwarded-for': '198.51.100.60' } });
      expect(await seenIp(ping)).toBe('127.0.0.1');
    } finally {
      await new Promise<void>((resolve) => { server.close(() => resolve()); (server as { closeAllConnections?: () => void }).closeAllConnections?.(); });
    }
  });
});
