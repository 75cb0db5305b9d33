/** The pressure limiter (PRESSURE_LIMITER_*): a blocked event loop or a memory limit turns requests into 503
 * SERVICE_UNAVAILABLE with Retry-After until the sampler sees the process healthy again; /server/ping and
 * /server/health stay answered. The busy loops below block this very process, which runs the app. */
import { spawn } from 'node:child_process';
import { setImmediate as immediate, setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PressureMonitor } from '../../core/pressure/monitor.ts';
import { exceededLimit } from '../../core/pressure/thresholds.ts';
import { loadConfig } from '../../core/config.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { testEnv } from '../helpers/template.ts';
import { parseExposition, valueOf } from './exposition.ts';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* block the event loop */ }
}

/** Polls until `check` holds, yielding to timers and I/O in between; fails after `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await immediate();
  }
  throw new Error(`not within ${ms} ms: ${what}`);
}

function expectUnderPressure(r: { status: number; body: any; headers: Headers }, retryAfter: string): void {
  expect(r.status).toBe(503);
  expect(r.headers.get('retry-after')).toBe(retryAfter);
  expect(r.body).toEqual({ errors: [{ message: 'Under pressure', extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
}

describe('event-loop delay', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        PRESSURE_LIMITER_ENABLED: 'true', PRESSURE_LIMITER_SAMPLE_INTERVAL: '20', PRESSURE_LIMITER_MAX_EVENT_LOOP_DELAY: '100',
        // Only the delay is judged here: utilisation and memory are off.
        PRESSURE_LIMITER_MAX_EVENT_LOOP_UTILIZATION: '0', PRESSURE_LIMITER_RETRY_AFTER: '7',
      },
    });
  });
  afterAll(async () => { await t.close(); });

  it('sheds requests after the loop was blocked, then serves again once it is free', async () => {
    expect(t.services.pressure).not.toBeNull();
    // Healthy first (a loaded machine may need a moment after start-up).
    await eventually(async () => (await t.req('GET', '/server/info')).status === 200, 10_000, 'healthy before the block');

    busy(400);
    let shed: Awaited<ReturnType<TestApp['req']>> | null = null;
    let reason: string | null = null;
    await eventually(async () => {
      const r = await t.req('GET', '/server/info');
      if (r.status === 503) [shed, reason] = [r, t.services.pressure!.reason()];
      return shed !== null;
    }, 2_000, 'a 503 after a 400 ms block');
    expectUnderPressure(shed!, '7');
    expect(reason).toBe('eventLoopDelay');

    await eventually(async () => {
      await sleep(20);
      return (await t.req('GET', '/server/info')).status === 200;
    }, 10_000, 'served again after the loop is free');
  });

  it('does not shed after a block excused as loading code (a route group imported on first use)', async () => {
    const monitor = t.services.pressure!;
    await eventually(async () => !monitor.overloaded(), 10_000, 'healthy before the block');
    busy(400);
    monitor.excuseLoading();
    const seen: boolean[] = [];
    for (let i = 0; i < 15; i++) {
      await sleep(20);
      seen.push(monitor.overloaded());
    }
    expect(seen).not.toContain(true);
  });

  it('keeps answering /server/ping and /server/health while overloaded', async () => {
    busy(400);
    await eventually(async () => t.services.pressure!.overloaded(), 2_000, 'overloaded after a 400 ms block');
    // Sent together: all three pass the limiter in the same turn, before the next sample can clear it.
    const [ping, health, info] = await Promise.all([t.req('GET', '/server/ping'), t.req('GET', '/server/health'), t.req('GET', '/server/info')]);
    expect(ping.status).toBe(200);
    expect(ping.body).toBe('pong');
    expect(health.status).toBe(200);
    expectUnderPressure(info, '7');
  });
});

describe('heap limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PRESSURE_LIMITER_ENABLED: 'true', PRESSURE_LIMITER_MAX_MEMORY_HEAP_USED: '1mb' } });
  });
  afterAll(async () => { await t.close(); });

  it('answers 503 with Retry-After (default 1) to every request but ping and health, authenticated or not', async () => {
    expect(t.services.pressure!.reason()).toBe('memoryHeapUsed');
    expectUnderPressure(await t.req('GET', '/items/anything'), '1');
    expectUnderPressure(await t.req('GET', '/server/info', undefined, { token: null }), '1');
    expectUnderPressure(await t.req('POST', '/auth/login', { email: 'a@b.c', password: 'x' }, { token: null }), '1');
    expect((await t.req('GET', '/server/ping')).status).toBe(200);
    expect((await t.req('GET', '/server/health')).status).toBe(200);
  });
});

describe('with metrics', () => {
  it('counts shed requests under the pattern of the route they asked for', async () => {
    const t = await createTestApp({ env: { PRESSURE_LIMITER_ENABLED: 'true', PRESSURE_LIMITER_MAX_MEMORY_HEAP_USED: '1mb', METRICS_ENABLED: 'true' } });
    try {
      expect((await t.req('GET', '/items/posts/1')).status).toBe(503);
      // The scrape itself would be shed: read the registry directly.
      const samples = parseExposition(await t.services.metrics!.registry.metrics());
      expect(valueOf(samples, 'svc_http_requests_total', { method: 'GET', route: '/items/:collection/:pk', status_code: '503' })).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('switched off', () => {
  it('installs no sampler with PRESSURE_LIMITER_ENABLED=false or PRESSURE_ENABLED=false, even with a tiny limit', async () => {
    const envs: Record<string, string>[] = [{ PRESSURE_LIMITER_ENABLED: 'false' }, { PRESSURE_LIMITER_ENABLED: '', PRESSURE_ENABLED: 'false' }];
    for (const env of envs) {
      const t = await createTestApp({ env: { ...env, PRESSURE_LIMITER_MAX_MEMORY_HEAP_USED: '1mb' } });
      try {
        expect(t.services.pressure).toBeNull();
        expect((await t.req('GET', '/server/info')).status).toBe(200);
      } finally {
        await t.close();
      }
    }
  });
});

describe('sampler', () => {
  it('judges each enabled limit, and none when all are 0', () => {
    const sample = { eventLoopDelayMs: 120, eventLoopUtilization: 0.995, heapUsed: 200e6, rss: 400e6 };
    const off = { maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0, maxMemoryHeapUsed: 0, maxMemoryRss: 0 };
    expect(exceededLimit(sample, off)).toBeNull();
    expect(exceededLimit(sample, { ...off, maxEventLoopDelayMs: 100 })).toBe('eventLoopDelay');
    expect(exceededLimit(sample, { ...off, maxEventLoopDelayMs: 150 })).toBeNull();
    expect(exceededLimit(sample, { ...off, maxEventLoopUtilization: 0.99 })).toBe('eventLoopUtilization');
    expect(exceededLimit(sample, { ...off, maxMemoryHeapUsed: 100e6 })).toBe('memoryHeapUsed');
    expect(exceededLimit(sample, { ...off, maxMemoryRss: 500e6 })).toBeNull();
    expect(exceededLimit(sample, { ...off, maxMemoryRss: 300e6 })).toBe('memoryRss');
  });

  it('samples on an unref\'d timer and stops with the services', async () => {
    const { pressure } = loadConfig(testEnv({ PRESSURE_LIMITER_ENABLED: 'true', PRESSURE_LIMITER_SAMPLE_INTERVAL: '10' }));
    const monitor = new PressureMonitor(pressure).start();
    try {
      const first = monitor.lastSample();
      expect(first.heapUsed).toBeGreaterThan(0);
      await eventually(async () => monitor.lastSample() !== first, 5_000, 'a second sample');
      expect(monitor.lastSample().eventLoopUtilization).toBeGreaterThanOrEqual(0);
    } finally {
      monitor.stop();
    }
    const stopped = monitor.lastSample();
    await sleep(50);
    expect(monitor.lastSample()).toBe(stopped);

    const t = await createTestApp({ env: { PRESSURE_LIMITER_ENABLED: 'true', PRESSURE_LIMITER_SAMPLE_INTERVAL: '10' } });
    const services = t.services.pressure!;
    await t.close();
    const afterClose = services.lastSample();
    await sleep(50);
    expect(services.lastSample()).toBe(afterClose);
  });
});

describe('a suspended process', () => {
  async function child(busyControl: boolean): Promise<{ reasons: string[] }> {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'test/server/pressure-child.ts'], {
      env: { ...process.env, BUSY: busyControl ? '1' : '0' }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      let stopped = false;
      const lines = (async function* () {
        for await (const chunk of proc.stdout!) {
          out += String(chunk);
          yield out;
        }
      })();
      for await (const text of lines) {
        if (text.includes('ready') && !busyControl && !stopped) {
          // Stopped at once, possibly in the middle of running JavaScript (a freeze chooses no quiet moment).
          stopped = true;
          proc.kill('SIGSTOP');
          await sleep(600);
          proc.kill('SIGCONT');
        }
        const done = /\{.*\}/.exec(text);
        if (done) return JSON.parse(done[0]) as { reasons: string[] };
      }
      throw new Error(`child ended without a verdict: ${out}`);
    } finally {
      proc.kill('SIGKILL');
    }
  }

  it('does not count a pause of the whole process (frozen Lambda, SIGSTOP) as overload, but a busy loop', async () => {
    expect((await child(false)).reasons).toEqual([]);
    expect((await child(true)).reasons).toContain('eventLoopDelay');
  }, 60_000);
});
