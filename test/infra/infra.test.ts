/** sst.config.ts and infra/ loaded with SST's globals replaced by recording fakes (no SST CLI, no AWS): the
 * resources, links, environments and routes they declare; docker-compose.yml and the Dockerfile checked against
 * the same names. `docker compose config` runs only where a docker client with the compose plugin exists. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../core/config.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

// ---------------------------------------------------------------------------------------------------------------
// Recording fakes of SST's globals

/** Pulumi's Output: here a known value; unknown resource attributes are the placeholder `<Name.attribute>`. */
class FakeOutput<T> {
  constructor(readonly value: T) {}
  apply<U>(fn: (value: T) => U | FakeOutput<U>): FakeOutput<U> {
    const result = fn(this.value);
    return result instanceof FakeOutput ? result : new FakeOutput(result as U);
  }
}

const unwrap = (v: unknown): unknown => (v instanceof FakeOutput ? v.value : v);

interface Created {
  type: string;
  name: string;
  args: any;
  instance: any;
  calls: { method: string; args: unknown[] }[];
}

let created: Created[] = [];

/** A component class: records its construction and method calls; any other property is an Output placeholder. */
function component(type: string, methods: string[] = []) {
  return class {
    constructor(name: string, args?: unknown) {
      const record: Created = { type, name, args, instance: null, calls: [] };
      const self = new Proxy(this, {
        get(target, prop) {
          if (typeof prop !== 'string') return Reflect.get(target, prop);
          if (prop === '__record') return record;
          if (methods.includes(prop)) return (...a: unknown[]) => { record.calls.push({ method: prop, args: a }); };
          if (prop === 'then') return undefined;
          return new FakeOutput(`<${name}.${prop}>`);
        },
      });
      record.instance = self;
      created.push(record);
      return self;
    }
  };
}

function installGlobals(stage: string) {
  const g = globalThis as any;
  g.$app = { name: 'svc', stage };
  g.$dev = false;
  g.$config = (input: unknown) => input;
  g.$util = {
    output: (v: unknown) => (v instanceof FakeOutput ? v : new FakeOutput(v)),
    all: (values: unknown[]) => new FakeOutput(values.map(unwrap)),
    interpolate: (s: TemplateStringsArray, ...p: unknown[]) => new FakeOutput(String.raw(s, ...p.map(unwrap))),
    jsonStringify: (v: unknown) => new FakeOutput(JSON.stringify(v)),
  };
  g.$interpolate = g.$util.interpolate;
  g.sst = {
    Secret: component('Secret'),
    aws: {
      Vpc: component('Vpc'),
      Postgres: component('Postgres'),
      Redis: component('Redis'),
      Queue: component('Queue', ['subscribe']),
      Bucket: component('Bucket'),
      Function: component('Function'),
      ApiGatewayV2: component('ApiGatewayV2', ['route']),
      Cluster: component('Cluster'),
      Service: component('Service'),
      Router: component('Router', ['route', 'routeBucket']),
      StaticSite: component('StaticSite'),
    },
  };
}

function removeGlobals() {
  const g = globalThis as any;
  for (const k of ['$app', '$dev', '$config', '$util', '$interpolate', 'sst']) delete g[k];
}

function one(type: string, name?: string): Created {
  const found = created.filter((c) => c.type === type && (name === undefined || c.name === name));
  expect(found, `${type} ${name ?? ''}`).toHaveLength(1);
  return found[0];
}

/** An environment with every Output replaced by its value: what the process would see. */
function resolved(env: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    const value = unwrap(v);
    expect(typeof value, k).toBe('string');
    out[k] = value as string;
  }
  return out;
}

const SAVED = ['SVC_AWS_REGION', 'AWS_REGION', 'SVC_CONTAINER_DOMAIN', 'SVC_ROUTER_DOMAIN', 'ASSETS_CACHE_TTL', 'METRICS_ENABLED'];
let savedEnv: Record<string, string | undefined> = {};

async function deployStage(stage: string, env: Record<string, string> = {}) {
  created = [];
  installGlobals(stage);
  for (const k of SAVED) delete process.env[k];
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
  const config = (await import('../../sst.config.ts')).default as unknown as {
    app(input: { stage: string }): any;
    run(): Promise<Record<string, unknown>>;
  };
  const app = config.app({ stage });
  const outputs = await config.run();
  return { app, outputs };
}

// ---------------------------------------------------------------------------------------------------------------
// What the service reads

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** Environment variable names core/, functions/ and container/ read: literals of the config parsers, process.env.X,
 * and the `<prefix>_POINTS` / `<prefix>_DURATION` pairs of the rate limiter. Plus the AWS SDK's credentials. */
const READ_NAMES = (() => {
  const names = new Set(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);
  const files = [
    join(ROOT, 'core/config.ts'), join(ROOT, 'core/files/config.ts'), join(ROOT, 'core/ratelimit/config.ts'),
  ];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/'([A-Z][A-Z0-9_]{2,})'/g)) names.add(m[1]);
    for (const m of text.matchAll(/bucket\(env, '([A-Z_]+)'/g)) names.add(`${m[1]}_POINTS`).add(`${m[1]}_DURATION`);
  }
  for (const dir of ['core', 'functions', 'container']) {
    for (const file of sourceFiles(join(ROOT, dir))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]);
    }
  }
  return names;
})();

// ---------------------------------------------------------------------------------------------------------------

describe('infra/ (sst.config.ts with SST globals stubbed)', () => {
  beforeEach(() => {
    savedEnv = Object.fromEntries(SAVED.map((k) => [k, process.env[k]]));
    for (const k of SAVED) delete process.env[k];
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(savedEnv)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    removeGlobals();
  });

  it('the app: production retains and protects its resources, other stages do not; the region is the provider\'s', async () => {
    const prod = await deployStage('production', { SVC_AWS_REGION: 'eu-west-1' });
    expect(prod.app).toMatchObject({ name: 'svc', home: 'aws', removal: 'retain', protect: true, providers: { aws: { region: 'eu-west-1' } } });
    expect(resolved(one('Service').args.environment).AWS_REGION).toBe('eu-west-1');
    const dev = await deployStage('dev');
    expect(dev.app).toMatchObject({ removal: 'remove', protect: false, providers: { aws: { region: 'us-east-1' } } });
  });

  it('declares the VPC, Postgres with RDS Proxy, Redis without cluster mode, the bucket and the secrets', async () => {
    await deployStage('production');
    const vpc = one('Vpc').instance;
    const db = one('Postgres');
    expect(db.args).toMatchObject({ proxy: true, multiAz: true, vpc });
    expect(one('Redis').args).toMatchObject({ cluster: false, vpc });
    one('Bucket', 'Files');
    const secrets = created.filter((c) => c.type === 'Secret').map((c) => c.name).sort();
    expect(secrets).toEqual(['AdminEmail', 'AdminPassword', 'EmailSmtpPassword', 'EmailSmtpUser', 'Secret']);
    // The signing secret and the admin password have no placeholder: `sst deploy` refuses to run without them.
    expect(one('Secret', 'Secret').args).toBeUndefined();
    expect(one('Secret', 'AdminPassword').args).toBeUndefined();

    await deployStage('dev');
    expect(one('Postgres').args).toMatchObject({ proxy: true, multiAz: false });
  });

  it('the job queue has a dead-letter queue with a redrive after as many receives as the local ElasticMQ', async () => {
    await deployStage('dev');
    const dead = one('Queue', 'JobsDead');
    const jobs = one('Queue', 'Jobs');
    expect(unwrap(jobs.args.dlq.queue)).toBe('<JobsDead.arn>');
    expect(jobs.args.dlq.retry).toBeGreaterThanOrEqual(3);
    expect(dead.args.transform.queue.messageRetentionSeconds).toBe(14 * 24 * 3600);
    const conf = readFileSync(join(ROOT, 'infra/elasticmq.conf'), 'utf8');
    expect(Number(/maxReceiveCount\s*=\s*(\d+)/.exec(conf)?.[1])).toBe(jobs.args.dlq.retry);
    expect(conf).toMatch(/deadLettersQueue\s*\{\s*name\s*=\s*"svc-jobs-dead"/);
  });

  it('the functions: Lambda nodejs20.x arm64 behind the HTTP API, small DB pool, no migrations, linked to everything', async () => {
    await deployStage('dev');
    const fn = one('Function', 'Functions');
    expect(fn.args).toMatchObject({ handler: 'functions/lambda.handler', runtime: 'nodejs20.x', architecture: 'arm64', memory: '1024 MB' });
    expect(Number(/^(\d+) seconds$/.exec(fn.args.timeout)?.[1])).toBeLessThanOrEqual(30);
    expect(fn.args.vpc).toBe(one('Vpc').instance);
    expect(fn.args.nodejs.format).toBe('esm');
    expect(fn.args.nodejs.install).toEqual(expect.arrayContaining(['sharp', '@node-rs/argon2']));
    expect(fn.args.nodejs.esbuild.external).toEqual(expect.arrayContaining(['@electric-sql/pglite']));
    // The handler named exists.
    expect(readFileSync(join(ROOT, 'functions/lambda.ts'), 'utf8')).toMatch(/export \{ lambdaHandler as handler \}/);

    const api = one('ApiGatewayV2', 'Api');
    expect(api.calls).toEqual([{ method: 'route', args: ['$default', fn.instance.arn] }]);
    expect(unwrap(fn.instance.arn)).toBe('<Functions.arn>');

    const env = resolved(fn.args.environment);
    expect(env).toMatchObject({ SVC_MODE: 'functions', DB_POOL_MAX: '2', SVC_RUN_MIGRATIONS: 'false', RATE_LIMITER_STORE: 'shared' });
    // Reserved by Lambda: setting it fails the deploy.
    expect(env).not.toHaveProperty('AWS_REGION');
  });

  it('the container: ECS service from the Dockerfile with scaling, load-balancer and task health checks', async () => {
    await deployStage('production');
    const cluster = one('Cluster', 'Cluster');
    expect(cluster.args.vpc).toBe(one('Vpc').instance);
    const svc = one('Service', 'Container');
    expect(svc.args.cluster).toBe(cluster.instance);
    expect(svc.args.image).toEqual({ context: '.', dockerfile: 'Dockerfile' });
    expect(existsSync(join(ROOT, svc.args.image.dockerfile))).toBe(true);
    expect(svc.args.scaling).toMatchObject({ min: 2, max: 8, cpuUtilization: 70 });
    expect(svc.args.loadBalancer.ports).toEqual([{ listen: '80/http', forward: '8055/http' }]);
    expect(svc.args.loadBalancer.health['8055/http']).toMatchObject({ path: '/server/health' });
    expect(svc.args.health.command.join(' ')).toContain('/server/health');
    const env = resolved(svc.args.environment);
    expect(env).toMatchObject({ SVC_MODE: 'container', HOST: '0.0.0.0', PORT: '8055', DB_POOL_MAX: '10', AWS_REGION: 'us-east-1' });
    expect(env).not.toHaveProperty('SVC_RUN_MIGRATIONS');

    await deployStage('dev', { SVC_CONTAINER_DOMAIN: 'origin.example.com' });
    const dev = one('Service', 'Container');
    expect(dev.args.scaling).toMatchObject({ min: 1, max: 2 });
    expect(dev.args.scaling.max).toBeGreaterThan(dev.args.scaling.min);
    expect(dev.args.loadBalancer).toMatchObject({ domain: 'origin.example.com', ports: [{ listen: '443/https', forward: '8055/http' }] });
  });

  it('both halves link the database, Redis, the queue, the bucket and every secret', async () => {
    await deployStage('dev');
    const expected = [
      one('Postgres').instance, one('Redis').instance, one('Queue', 'Jobs').instance, one('Bucket').instance,
      ...created.filter((c) => c.type === 'Secret').map((c) => c.instance),
    ];
    for (const half of [one('Function'), one('Service')]) {
      expect(half.args.link).toHaveLength(expected.length);
      for (const resource of expected) expect(half.args.link).toContain(resource);
    }
  });

  it('both environments come from the deployed resources and parse with core/config.ts', async () => {
    await deployStage('dev', { ASSETS_CACHE_TTL: '1h', METRICS_ENABLED: 'true' });
    for (const half of [one('Function'), one('Service')]) {
      const env = resolved(half.args.environment);
      expect(env.DATABASE_URL).toBe('postgres://%3CDatabase.username%3E:%3CDatabase.password%3E@<Database.host>:<Database.port>/<Database.database>');
      expect(env.REDIS_URL).toMatch(/^rediss:\/\/.*@<Redis\.host>:<Redis\.port>$/);
      expect(env.SQS_QUEUE_URL).toBe('<Jobs.url>');
      expect(env.PUBLIC_URL).toBe('<Router.url>');
      expect(env.SECRET).toBe('<Secret.value>');
      expect(env.ADMIN_PASSWORD).toBe('<AdminPassword.value>');
      expect(env.EMAIL_SMTP_PASSWORD).toBe('<EmailSmtpPassword.value>');
      expect(env).toMatchObject({ ASSETS_CACHE_TTL: '1h', METRICS_ENABLED: 'true' });

      const config = loadConfig(env);
      expect(config.databaseUrl).toBe(env.DATABASE_URL);
      expect(config.redisUrl).toBe(env.REDIS_URL);
      expect(config.sqsQueueUrl).toBe('<Jobs.url>');
      expect(config.secretGenerated).toBe(false);
      expect(config.rateLimiter.store).toBe('shared');
      expect(config.files.assetsCacheTtlMs).toBe(3_600_000);
      expect(config.metrics.enabled).toBe(true);
      expect(config.dbPoolMax).toBe(half.type === 'Function' ? 2 : 10);
    }
  });

  it('every variable either half is given is one the service reads', async () => {
    await deployStage('dev');
    expect(READ_NAMES.has('DATABASE_URL')).toBe(true);
    expect(READ_NAMES.has('RATE_LIMITER_POINTS')).toBe(true);
    expect(READ_NAMES.has('STORAGE_LOCATIONS')).toBe(false);
    const { PASS_THROUGH } = await import('../../infra/settings.ts');
    for (const name of PASS_THROUGH) expect(READ_NAMES.has(name), name).toBe(true);
    for (const half of [one('Function'), one('Service')]) {
      for (const name of Object.keys(half.args.environment)) expect(READ_NAMES.has(name), `${half.name}: ${name}`).toBe(true);
    }
  });

  it('the router: /assets, /tus, /utils/import, /utils/export, /websocket, /realtime and /_container to the container, the rest to the API', async () => {
    const { outputs } = await deployStage('dev');
    const { REALTIME_PATHS, REALTIME_READ_TIMEOUT } = await import('../../infra/router.ts');
    const router = one('Router', 'Router');
    const routes = router.calls.filter((c) => c.method === 'route').map((c) => ({
      prefix: c.args[0] as string, url: unwrap(c.args[1]) as string, args: c.args[2] as any,
    }));
    const target = (prefix: string) => routes.find((r) => r.prefix === prefix)?.url;
    expect(target('/')).toBe('<Api.url>');
    const containerPrefixes = ['/assets', '/tus', '/utils/import', '/utils/export', '/websocket', '/realtime', '/_container'];
    for (const prefix of containerPrefixes) expect(target(prefix), prefix).toBe('<Container.url>');
    expect(routes.map((r) => r.prefix).sort()).toEqual(['/', ...containerPrefixes].sort());
    expect([...REALTIME_PATHS].sort()).toEqual(['/realtime', '/websocket']);
    expect(routes.find((r) => r.prefix === '/_container')?.args.rewrite).toEqual({ regex: '^/_container/(.*)$', to: '/$1' });
    // The realtime routes: no rewrite (the container serves them at these paths), the longer read timeout.
    for (const path of REALTIME_PATHS) expect(routes.find((r) => r.prefix === path)?.args, path).toEqual({ readTimeout: REALTIME_READ_TIMEOUT });
    expect(unwrap(outputs.url)).toBe('<Router.url>');
    // The Studio registers its own route (a site entry in the router's KeyValueStore), not through route().
    const studio = one('StaticSite', 'Studio');
    expect(studio.args.router.instance).toBe(router.instance);
    const sites = [{ prefix: studio.args.router.path as string, url: 'studio' }];

    // Longest matching prefix wins (SST Router), after the viewer-request injection. CloudFront Functions see the
    // path without the query string (event.request.uri; the query is event.request.querystring).
    const injection = new Function('event', `${router.args.edge.viewerRequest.injection}; return event;`) as (e: any) => any;
    const routeOf = (method: string, url: string, headers: Record<string, string> = {}): string => {
      const uri = url.split('?')[0];
      const event = { request: { method, uri, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { value: v }])) } };
      const path: string = injection(event).request.uri;
      const match = [...routes, ...sites].filter((r) => path === r.prefix || path.startsWith(r.prefix.endsWith('/') ? r.prefix : `${r.prefix}/`)
        || r.prefix === '/').sort((a, b) => b.prefix.length - a.prefix.length)[0];
      return match.url === '<Container.url>' ? 'container' : match.url === 'studio' ? 'studio' : 'functions';
    };
    const multipart = { 'content-type': 'multipart/form-data; boundary=x' };
    const json = { 'content-type': 'application/json' };
    const upgrade = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' };
    const cases: [method: string, url: string, headers: Record<string, string>, half: string][] = [
      ['POST', '/files', multipart, 'container'],
      ['POST', '/files/', { 'content-type': 'Multipart/Form-Data; boundary=x' }, 'container'],
      ['PATCH', '/files/6b1c', multipart, 'container'],
      ['POST', '/files', json, 'functions'],
      ['PATCH', '/files/6b1c', json, 'functions'],
      ['PATCH', '/files/6b1c/x', multipart, 'functions'],
      ['GET', '/files', {}, 'functions'],
      ['POST', '/items/articles', multipart, 'functions'],
      ['GET', '/assets/6b1c', {}, 'container'],
      ['GET', '/assets/6b1c?width=10', {}, 'container'],
      ['POST', '/tus', {}, 'container'],
      ['PATCH', '/tus/abc', {}, 'container'],
      ['POST', '/utils/import/articles', multipart, 'container'],
      ['POST', '/utils/export/articles', {}, 'container'],
      ['GET', '/assetsx', {}, 'functions'],
      ['GET', '/server/health', {}, 'functions'],
      // Realtime: the WebSocket upgrade and the SSE stream, with or without a query string.
      ['GET', '/websocket', upgrade, 'container'],
      ['GET', '/websocket?access_token=abc', upgrade, 'container'],
      ['GET', '/websocket', {}, 'container'],
      ['GET', '/realtime', { accept: 'text/event-stream' }, 'container'],
      ['GET', '/realtime?collection=articles&query=%7B%7D&access_token=abc', { accept: 'text/event-stream', 'last-event-id': '17-0' }, 'container'],
      ['GET', '/realtime/', {}, 'container'],
      ['GET', '/websockets', upgrade, 'functions'],
      ['GET', '/realtimex', {}, 'functions'],
      ['GET', '/items/realtime', {}, 'functions'],
      ['GET', '/items/websocket', upgrade, 'functions'],
      ['GET', '/adminx', {}, 'functions'],
      ['POST', '/auth/login', json, 'functions'],
      ...['/admin', '/admin/', '/admin/content/posts/12', '/admin/assets/index-abc.js'].map((uri) => ['GET', uri, {}, 'studio'] as [string, string, Record<string, string>, string]),
    ];
    for (const [method, url, headers, half] of cases) expect(routeOf(method, url, headers), `${method} ${url}`).toBe(half);
  });

  it('realtime timeouts: heartbeats keep every hop of an idle WebSocket or SSE stream open', async () => {
    await deployStage('dev');
    const { REALTIME_HEARTBEAT_SECONDS, REALTIME_READ_TIMEOUT } = await import('../../infra/router.ts');
    const { ALB_IDLE_TIMEOUT_SECONDS } = await import('../../infra/container.ts');
    const { CONTAINER_KEEP_ALIVE_TIMEOUT } = await import('../../infra/env.ts');
    const seconds = (text: string) => Number(/^(\d+) seconds$/.exec(text)?.[1]);
    const heartbeat = REALTIME_HEARTBEAT_SECONDS;
    // CloudFront: the origin read timeout is the longest gap between two packets; 60 s is its maximum without a
    // quota increase, and a heartbeat arrives well within it.
    expect(seconds(REALTIME_READ_TIMEOUT)).toBeGreaterThan(heartbeat);
    expect(seconds(REALTIME_READ_TIMEOUT)).toBeLessThanOrEqual(60);
    // CloudFront closes a WebSocket after 10 minutes without a byte from the origin.
    expect(heartbeat).toBeLessThan(600);
    // The ALB: raised from its default 60 s, above the server's own silence limit (two periods), so the server and
    // not the load balancer closes a dead socket.
    const service = one('Service', 'Container');
    expect(service.args.transform.loadBalancer).toEqual({ idleTimeout: ALB_IDLE_TIMEOUT_SECONDS });
    expect(ALB_IDLE_TIMEOUT_SECONDS).toBe(120);
    expect(ALB_IDLE_TIMEOUT_SECONDS).toBeGreaterThan(2 * heartbeat);
    expect(ALB_IDLE_TIMEOUT_SECONDS).toBeLessThanOrEqual(4000);
    // The task keeps idle connections from the ALB open longer than the ALB does.
    const env = resolved(service.args.environment);
    expect(env.HTTP_KEEP_ALIVE_TIMEOUT).toBe(CONTAINER_KEEP_ALIVE_TIMEOUT);
    const http = loadConfig(env).http;
    expect(http.keepAliveTimeoutMs).toBeGreaterThan(ALB_IDLE_TIMEOUT_SECONDS * 1000);
    // The socket timeout (no traffic either way) stays above the heartbeat: an open stream is never idle that long.
    expect(http.socketTimeoutMs === 0 || http.socketTimeoutMs > heartbeat * 1000).toBe(true);
    // The Lambda half keeps its defaults: API Gateway, not an ALB, is in front of it.
    expect(resolved(one('Function').args.environment)).not.toHaveProperty('HTTP_KEEP_ALIVE_TIMEOUT');
  });

  it('realtime timeouts are sized for the server\'s default heartbeat period', async () => {
    const { REALTIME_HEARTBEAT_SECONDS } = await import('../../infra/router.ts');
    expect(loadConfig({}).realtime.heartbeatMs).toBe(REALTIME_HEARTBEAT_SECONDS * 1000);
  });

  it('the edge cache follows the origin Cache-Control and keys on the query string and Authorization', async () => {
    await deployStage('dev');
    const policy = one('Router').args.transform.cachePolicy;
    expect(policy).toMatchObject({ defaultTtl: 0, minTtl: 0 });
    expect(policy.maxTtl).toBeGreaterThanOrEqual(86_400);
    const key = policy.parametersInCacheKeyAndForwardedToOrigin;
    expect(key.queryStringsConfig.queryStringBehavior).toBe('all');
    expect(key.headersConfig).toEqual({ headerBehavior: 'whitelist', headers: { items: ['authorization'] } });
    expect(key.cookiesConfig.cookieBehavior).toBe('none');
    // Cookies (the Studio's svc_session_token) still reach the origins: SST's Router attaches CloudFront's
    // AllViewerExceptHostHeader origin request policy (all cookies) to its behaviour, and nothing here replaces it
    // (a `transform.cdn` could). infra/router.ts > CACHE_POLICY has the details.
    expect(Object.keys(one('Router').args.transform)).toEqual(['cachePolicy']);
    // The origin does send Cache-Control on assets (public or private, ASSETS_CACHE_TTL).
    expect(readFileSync(join(ROOT, 'core/assets/serve.ts'), 'utf8')).toMatch(/'cache-control': `\$\{isPublic \? 'public' : 'private'\}, max-age=/);
  });

  it('the Studio: a static site of studio/dist, built at deploy, served through the router at /admin with the SPA fallback', async () => {
    const { outputs } = await deployStage('dev');
    const { STUDIO_PATH, STUDIO_BUILD } = await import('../../infra/studio.ts');
    const site = one('StaticSite', 'Studio');
    expect(STUDIO_PATH).toBe('/admin');
    expect(site.args).toMatchObject({ path: '.', build: { command: 'npm run build:studio', output: 'studio/dist' } });
    expect(site.args.build).toEqual(STUDIO_BUILD);
    expect(site.args.router).toEqual({ instance: one('Router').instance, path: STUDIO_PATH });
    // A deep link (/admin/content/posts/12) matches no file: SST's routing answers the site's `custom404`, which is
    // the index page while `errorPage` is unset; with `errorPage` set (SST >= 4.2.2) it would be a 404 instead.
    expect(site.args).not.toHaveProperty('errorPage');
    expect(site.args).not.toHaveProperty('indexPage');
    // SST refuses both on a site served through a Router (they belong to the Router).
    expect(site.args).not.toHaveProperty('domain');
    expect(site.args).not.toHaveProperty('edge');
    // Only the Studio's paths are invalidated, not the edge cache of /assets.
    expect(site.args.invalidation).toEqual({ paths: ['/admin*'], wait: false });
    expect(unwrap(outputs.studio)).toBe('<Studio.url>');

    // The build it uploads: `npm run build:studio` writes studio/dist with Vite's base at the same path.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts['build:studio']).toMatch(/scripts\/build-studio\.mjs/);
    const vite = readFileSync(join(ROOT, 'studio/vite.config.ts'), 'utf8');
    expect(/base: '([^']*)'/.exec(vite)?.[1]).toBe(`${STUDIO_PATH}/`);
    expect(`studio/${/outDir: '([^']*)'/.exec(vite)?.[1]}`).toBe(STUDIO_BUILD.output);
    expect(/assetsDir: '([^']*)'/.exec(vite)?.[1]).toBe('assets');
  });

  it('the Studio\'s files: hashed assets immutable, index.html and the rest no-cache, as the container sends them', async () => {
    await deployStage('dev');
    const { IMMUTABLE, REVALIDATE } = await import('../../infra/studio.ts');
    const options = one('StaticSite', 'Studio').args.assets.fileOptions as { files: string | string[]; ignore?: string | string[]; cacheControl?: string }[];
    // The same values as container/studio.ts.
    const container = readFileSync(join(ROOT, 'container/studio.ts'), 'utf8');
    expect(container).toContain(`'Cache-Control', '${IMMUTABLE}'`);
    expect(container).toContain(`c.header('Cache-Control', '${REVALIDATE}')`);

    // SST's upload (static-site.ts uploadAssets): options from the last to the first, globs with dot files, each file
    // taken by the first option that matches it and not ignores it; a file no option takes is not uploaded.
    const literal = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    const glob = (pattern: string) => new RegExp(`^${pattern.split(/(\*\*\/|\*\*|\*)/).map((part) =>
      part === '**/' ? '(?:.*/)?' : part === '**' ? '.*' : part === '*' ? '[^/]*' : literal(part)).join('')}$`);
    const matches = (patterns: string | string[] | undefined, file: string) => [patterns ?? []].flat().some((p) => glob(p).test(file));
    const upload = (files: string[]) => {
      const taken = new Map<string, string | undefined>();
      for (const option of [...options].reverse()) {
        for (const file of files) if (!taken.has(file) && matches(option.files, file) && !matches(option.ignore, file)) taken.set(file, option.cacheControl);
      }
      return taken;
    };
    const built = (dir: string, prefix = ''): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? built(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]);
    const files = [
      'index.html', '.built', 'favicon.svg', 'assets/index-BJU591Lb.js', 'assets/index-BJU591Lb.js.gz', 'assets/index-BJU591Lb.js.br',
      'assets/index-SqkBHB7P.css', 'assets/index-SqkBHB7P.css.br', 'assets/ContentModule-Ca71erkg.js', 'assets/logo-x1.svg',
      ...(existsSync(join(ROOT, 'studio/dist')) ? built(join(ROOT, 'studio/dist')) : []),
    ];
    const taken = upload(files);
    expect(taken.get('index.html')).toBe(REVALIDATE);
    expect(taken.get('favicon.svg')).toBe(REVALIDATE);
    expect(taken.get('assets/index-BJU591Lb.js')).toBe(IMMUTABLE);
    expect(taken.get('assets/index-SqkBHB7P.css')).toBe(IMMUTABLE);
    expect(taken.get('assets/logo-x1.svg')).toBe(IMMUTABLE);
    for (const file of files) {
      if (/\.(gz|br)$/.test(file) || file === '.built') expect(taken.has(file), file).toBe(false);
      else expect(taken.get(file), file).toBe(file.startsWith('assets/') ? IMMUTABLE : REVALIDATE);
    }
    // Disjoint options: the order SST applies them in does not matter.
    for (const file of files) expect(options.filter((o) => matches(o.files, file) && !matches(o.ignore, file)).length, file).toBeLessThanOrEqual(1);
  });

  it('the router adds the Studio\'s CSP and security headers at the edge, to answers under /admin only', async () => {
    await deployStage('dev');
    const { SECURITY_HEADERS, STUDIO_CSP } = await import('../../container/studio-headers.ts');
    // One definition: container/studio.ts sends the same object, and the shared module imports nothing.
    expect((await import('../../container/studio.ts')).SECURITY_HEADERS).toBe(SECURITY_HEADERS);
    expect(readFileSync(join(ROOT, 'container/studio-headers.ts'), 'utf8')).not.toMatch(/^\s*(import|export .* from)\b/m);
    expect(SECURITY_HEADERS['Content-Security-Policy']).toBe(STUDIO_CSP);

    const injection: string = one('Router').args.edge.viewerResponse.injection;
    // ES5 like the viewer-request snippet.
    expect(injection).not.toMatch(/\b(?:let|const|class)\b|=>|`/);
    // SST's wrapper of a Router viewer-response injection (router.ts createResponseFunction), in a context of its own:
    // nothing of Node's.
    const context = createContext({});
    runInContext(`async function handler(event) {\n${injection}\n  return event.response;\n}`, context);
    const respond = async (uri: string) => {
      const event = {
        version: '1.0',
        context: { eventType: 'viewer-response', distributionId: 'E2EXAMPLE', requestId: 'r1' },
        viewer: { ip: '192.0.2.10' },
        request: { method: 'GET', uri, querystring: {}, headers: { host: { value: 'd111111abcdef8.cloudfront.net' } }, cookies: {} },
        response: { statusCode: 200, statusDescription: 'OK', headers: { 'content-type': { value: 'text/html' } }, cookies: {} },
      };
      const response = await (context.handler as (e: unknown) => Promise<unknown>)(event);
      return JSON.parse(JSON.stringify(response)) as { statusCode: number; headers: Record<string, { value: string }> };
    };
    const added = {
      'content-security-policy': { value: STUDIO_CSP },
      'x-content-type-options': { value: 'nosniff' },
      'referrer-policy': { value: 'same-origin' },
    };
    expect(Object.keys(added)).toEqual(Object.keys(SECURITY_HEADERS).map((n) => n.toLowerCase()));
    for (const uri of ['/admin', '/admin/', '/admin/x', '/admin/index.html', '/admin/content/posts/12', '/admin/assets/index-abc.js']) {
      const response = await respond(uri);
      expect(response.statusCode).toBe(200);
      expect(response.headers, uri).toEqual({ 'content-type': { value: 'text/html' }, ...added });
    }
    for (const uri of ['/items/x', '/', '/adminx', '/administrator', '/assets/6b1c', '/_container/files', '/server/health', '/items/admin']) {
      expect((await respond(uri)).headers, uri).toEqual({ 'content-type': { value: 'text/html' } });
    }
  });

  it('the local Caddy router sends the same prefixes to the container, and streams the realtime endpoints', async () => {
    const { CONTAINER_PREFIXES, REALTIME_PATHS } = await import('../../infra/router.ts');
    const caddy = readFileSync(join(ROOT, 'infra/Caddyfile'), 'utf8');
    // Named path matchers and the body of the `handle` block of each.
    const matchers = new Map([...caddy.matchAll(/^\s*@(\w+) path (.+)$/gm)].map((m) => [m[1], m[2].trim().split(/\s+/)]));
    const handle = (name: string) => new RegExp(`handle @${name} \\{([^]*?)\\n\\t\\}`).exec(caddy)?.[1] ?? '';
    const toContainer = (name: string) => /^\s*reverse_proxy container:8055\b/.test(handle(name));
    for (const prefix of CONTAINER_PREFIXES.filter((p) => p !== '/_container')) {
      const names = [...matchers].filter(([, paths]) => paths.some((p) => p === prefix || p === `${prefix}/*`)).map(([name]) => name);
      expect(names, prefix).toHaveLength(1);
      expect(toContainer(names[0]), prefix).toBe(true);
    }
    // Realtime: the path itself and below it (as CloudFront's prefix route), streamed without buffering.
    const realtime = [...matchers].filter(([, paths]) => REALTIME_PATHS.some((p) => paths.includes(p)));
    expect(realtime).toHaveLength(1);
    const [name, paths] = realtime[0];
    expect([...paths].sort()).toEqual(REALTIME_PATHS.flatMap((p) => [p, `${p}/*`]).sort());
    expect(handle(name)).toMatch(/reverse_proxy container:8055 \{\s*flush_interval -1\s*\}/);
    // Nothing in front of it that would hold a streamed answer back (compression, a response body rewrite).
    expect(caddy).not.toMatch(/^\s*(encode|templates|replace)\b/m);

    expect(caddy).toMatch(/method POST\s+path \/files \/files\/\s+header Content-Type multipart\/form-data\*/);
    expect(caddy).toMatch(/method PATCH\s+path_regexp \^\/files\/\[\^\/\]\+\$\s+header Content-Type multipart\/form-data\*/);
    // The Studio: the container serves it (container/compose.ts), the functions half does not.
    expect(caddy).toMatch(/@studio path \/admin \/admin\/\*/);
    expect(toContainer('studio')).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------------

const compose = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; build?: unknown; environment?: Record<string, string>; depends_on?: unknown; volumes?: string[] }>;
};

/** A service's environment as compose gives it with nothing set in the shell: `${NAME:-default}` -> default. */
function composeEnv(service: string): Record<string, string> {
  const env = compose.services[service].environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]));
}

/** A docker client with the compose plugin (neither is installed on the development machines). */
const COMPOSE_AVAILABLE = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0;

describe('docker-compose.yml and the Dockerfile (local emulation)', () => {
  afterEach(() => removeGlobals());

  it('lists postgres, redis, the S3, SQS and SMTP stand-ins, both halves from this image, and the router', () => {
    const s = compose.services;
    expect(s.postgres.image).toMatch(/^postgres:/);
    expect(s.redis.image).toMatch(/^(redis|valkey\/valkey):/);
    expect(s.minio.image).toMatch(/^minio\/minio/);
    expect(s.elasticmq.image).toMatch(/^softwaremill\/elasticmq/);
    expect(s.mailpit.image).toMatch(/^axllent\/mailpit/);
    expect(s.router.image).toMatch(/^caddy:/);
    expect(s.router.volumes).toContain('./infra/Caddyfile:/etc/caddy/Caddyfile:ro');
    for (const half of ['functions', 'container']) {
      expect(s[half].build, half).toBe('.');
      expect(s[half].environment?.SVC_MODE).toBe(half);
    }
    expect(s['storage-setup'].depends_on).toEqual({ functions: { condition: 'service_healthy' } });
  });

  it('gives both halves the same variables as infra/, with the same pool sizes, and only ones the service reads', async () => {
    installGlobals('dev');
    created = [];
    const { deploy } = await import('../../infra/index.ts');
    deploy();
    const cloud = { functions: one('Function').args.environment, container: one('Service').args.environment };
    const { FUNCTIONS_DB_POOL_MAX, CONTAINER_DB_POOL_MAX } = await import('../../infra/env.ts');
    // Cloud-only: SMTP credentials (Mailpit needs none), the Lambda's skip of migrations (lambda.ts only).
    // HTTP_KEEP_ALIVE_TIMEOUT is sized for the ALB's idle timeout (infra/env.ts): Caddy is not an ALB.
    const cloudOnly = new Set(['EMAIL_SMTP_USER', 'EMAIL_SMTP_PASSWORD', 'SVC_RUN_MIGRATIONS', 'HTTP_KEEP_ALIVE_TIMEOUT']);
    for (const half of ['functions', 'container'] as const) {
      const local = composeEnv(half);
      for (const name of Object.keys(local)) expect(READ_NAMES.has(name), `${half}: ${name}`).toBe(true);
      for (const name of Object.keys(cloud[half])) {
        if (!cloudOnly.has(name)) expect(local, `${half}: ${name}`).toHaveProperty(name);
      }
      expect(local.DB_POOL_MAX).toBe(half === 'functions' ? FUNCTIONS_DB_POOL_MAX : CONTAINER_DB_POOL_MAX);
      expect(local.RATE_LIMITER_STORE).toBe('shared');
      expect(local.SQS_QUEUE_URL).toBe('http://elasticmq:9324/000000000000/svc-jobs');
      // The environment parses as the service would parse it.
      expect(Object.values(local).join(' ')).not.toContain('${');
      const config = loadConfig(local);
      expect(config.sqsEndpoint).toBe('http://elasticmq:9324');
      expect(config.files.storageLocalRoot).toBe('/app/uploads');
      expect(config.secretGenerated).toBe(false);
      expect(config.publicUrl).toBe('http://127.0.0.1:8055');
    }
    expect(readFileSync(join(ROOT, 'infra/elasticmq.conf'), 'utf8')).toMatch(/queues \{\s*svc-jobs \{/);
  });

  it('the Dockerfile is multi-stage, runs the compiled JavaScript as a non-root user and checks sharp at build', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const stages = [...dockerfile.matchAll(/^FROM \S+ AS (\w+)$/gm)].map((m) => m[1]);
    expect(stages).toEqual(['build', 'deps', 'run']);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/require\('sharp'\)/);
    const run = dockerfile.slice(dockerfile.indexOf('AS run'));
    expect(run).toMatch(/^USER node$/m);
    expect(run.indexOf('USER node')).toBeLessThan(run.indexOf('CMD ['));
    expect(run).toMatch(/^CMD \["node", ("--[a-z-]+=?[^"]*", )*"dist\/container\/main\.js"\]$/m);
    expect(run).not.toMatch(/tsx/);

    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.build).toMatch(/tsc -p tsconfig\.build\.json/);
    const build = readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8');
    expect(build).toMatch(/"outDir": "dist"/);
    expect(build).toMatch(/"rewriteRelativeImportExtensions": true/);
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8')).toMatch(/^dist\/$/m);
  });

  it.skipIf(!COMPOSE_AVAILABLE)('`docker compose config` validates the file', () => {
    const result = spawnSync('docker', ['compose', '-f', join(ROOT, 'docker-compose.yml'), 'config', '--quiet'], { encoding: 'utf8', cwd: ROOT });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
