/** Every environment variable the service reads, parsed and typed once. */
import { randomBytes } from 'node:crypto';
import { parseRateLimitConfig, parseTrustProxy, type RateLimitConfig, type TrustProxy } from './ratelimit/config.ts';
import { parseFilesConfig, type FilesConfig } from './files/config.ts';
import { parseSsoEnv } from './auth/sso/config.ts';
import type { SsoProviderConfig } from './auth/sso/types.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  host: string;
  port: number;
  publicUrl: string;
  nodeEnv: string;
  logLevel: LogLevel;
  /** Postgres server URL; when empty the embedded PGlite under dataDir is used. */
  databaseUrl: string | null;
  dataDir: string;
  dbPoolMax: number;
  /** DB_STATEMENT_TIMEOUT (5s; 0 = off): the time budget of one statement on a Postgres server (its
   * `statement_timeout`); a statement over it is cancelled and the request answers 503. */
  dbStatementTimeoutMs: number;
  /** DB_LONG_STATEMENT_TIMEOUT (10m; 0 = off; never below DB_STATEMENT_TIMEOUT): the budget of schema changes, index
   * builds, imports and administrators' exports. Migrations at start have none. */
  dbLongStatementTimeoutMs: number;
  /** DB_IDLE_IN_TRANSACTION_TIMEOUT (10s; 0 = off): how long a transaction on a Postgres server may sit idle (the
   * service awaiting something else while holding it) before the server ends its session, releasing its locks; work
   * with the long budget may idle for DB_LONG_STATEMENT_TIMEOUT. */
  dbIdleInTransactionTimeoutMs: number;
  /** The embedded engine's WASM compiler (PGLITE_WASM_COMPILER): `baseline` (Liftoff only: ~55MB less RSS, queries
   * up to ~30% slower) or `optimizing` (V8 tiers hot functions up to TurboFan). */
  pgliteWasmCompiler: 'baseline' | 'optimizing';
  redisUrl: string | null;
  /** Namespace inside the shared Redis (several deployments or test runs on one Redis). */
  redisNamespace: string;
  secret: string;
  secretGenerated: boolean;
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  adminEmail: string | null;
  adminPassword: string | null;
  projectName: string;
  maxPayloadSize: number;
  /** SCHEMA_MAX_PAYLOAD_SIZE: the largest snapshot or diff POST /schema/diff and /schema/apply read (admins only). */
  schemaMaxPayloadSize: number;
  querystringMaxParseDepth: number;
  queryLimitDefault: number;
  queryLimitMax: number;
  maxBatchMutation: number;
  maxRelationalDepth: number;
  /** RATE_LIMITER_* (SPEC.md > Limits). */
  rateLimiter: RateLimitConfig;
  /** TRUST_PROXY: which proxies' X-Forwarded-For decides the client IP. */
  trustProxy: TrustProxy;
  emailFrom: string;
  emailTransport: 'smtp' | 'sendmail';
  emailSmtpHost: string;
  emailSmtpPort: number;
  emailSmtpUser: string | null;
  emailSmtpPassword: string | null;
  emailSmtpSecure: boolean;
  userInviteTokenTtlMs: number;
  passwordResetTokenTtlMs: number;
  /** AUTH_LOCKOUT_COOLDOWN: how long a password stays locked after settings.auth_login_attempts failures in a row
   * (accounts at /auth/login, core/auth/lockout.ts; share passwords of POST /shares/auth). */
  authLockoutCooldownMs: number;
  /** Links a client may ask invitation, reset and verification mails to point at (besides PUBLIC_URL's). */
  userInviteUrlAllowList: string[];
  passwordResetUrlAllowList: string[];
  userRegisterUrlAllowList: string[];
  /** AUTH_PROVIDERS and AUTH_<NAME>_*: the external sign-on providers of the environment (core/auth/sso/config.ts);
   * runtime ones are records (core/auth/sso/registry.ts). */
  authProviders: SsoProviderConfig[];
  /** FILES_*, ASSETS_*, TUS_*, STORAGE_LOCAL_ROOT. */
  files: FilesConfig;
  /** SQS_QUEUE_URL: the Queue port goes to SQS (split topology); in-process when empty. */
  sqsQueueUrl: string | null;
  /** SQS_ENDPOINT: an SQS-compatible endpoint instead of AWS' (local emulation, tests). */
  sqsEndpoint: string | null;
  /** AWS_REGION for SQS (and the objectstore driver's default). */
  awsRegion: string;
  /** STUDIO_PREVIEW_ORIGINS: the websites the Studio's live preview may frame (its CSP's frame-src; checked and
   * normalised by container/studio-headers.ts when the Studio is mounted). */
  studioPreviewOrigins: string[];
  /** WORKFLOW_TIMEOUT_INTERVAL: how often the container scans for workflow step timeouts (default 30s). */
  workflowTimeoutIntervalMs: number;
  /** PUBLISH_SCHEDULE_INTERVAL: the longest the container waits between scans for due publish schedules (default
   * 5s; it also wakes when the next one falls due). */
  publishScheduleIntervalMs: number;
  /** NOTIFY_*: the notification outbox worker (core/notify/outbox). */
  notify: NotifyConfig;
  events: EventsConfig;
  /** WEBSOCKETS_* / REALTIME_*: /websocket and /realtime (core/realtime, container/realtime). */
  realtime: RealtimeConfig;
  /** METRICS_*: GET /server/metrics (SPEC.md > Server, metrics). */
  metrics: MetricsConfig;
  /** PRESSURE_ENABLED / PRESSURE_LIMITER_* / PRESSURE_ADMISSION_*: 503 when requests queue beyond the admission
   * limits, or under event-loop or memory pressure. */
  pressure: PressureConfig;
  /** GRAPHQL_*: limits of /graphql. */
  graphql: GraphqlConfig;
  /** IMPORT_* / EXPORT_*: /utils/import and /utils/export. */
  transfer: TransferConfig;
  /** EXTENSIONS_*: the extension host (core/extensions). */
  extensions: ExtensionsConfig;
  /** HTTP_* and SHUTDOWN_TIMEOUT: socket timeouts and the graceful drain of the listening server (container/main.ts). */
  http: HttpServerConfig;
  /** MCP_*: the MCP server at /mcp (core/mcp, docs/mcp.md). */
  mcp: McpConfig;
}

export interface McpConfig {
  /** MCP_ENABLED (false): serve /mcp whatever the stored settings (system_mcp_settings) say; a deployment configured
   * by its environment turns the server on here. */
  enabled: boolean;
  /** MCP_MAX_ROWS (100): the most rows one tool call reads (a larger or unlimited `limit` is lowered to it). */
  maxRows: number;
  /** MCP_MAX_RESULT_SIZE (512kb): the largest answer of one tool call or resource read; a larger one is refused with
   * a tool error that says to ask for fewer rows or fields. */
  maxResultBytes: number;
}

export interface HttpServerConfig {
  /** HTTP_HEADERS_TIMEOUT (60s): a client must have sent its request headers within this. */
  headersTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT (5m): a client must have sent its whole request (headers and body) within this. */
  requestTimeoutMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT (5s): an idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** HTTP_SOCKET_TIMEOUT (2m; 0 = off): a connection without any traffic either way (e.g. a client that stopped
   * reading its response) is closed after this. */
  socketTimeoutMs: number;
  /** SHUTDOWN_TIMEOUT (10s): on SIGTERM, in-flight requests get this long to finish before their connections close. */
  shutdownTimeoutMs: number;
}

export interface ExtensionsConfig {
  /** EXTENSIONS_PATH (./extensions): one folder per extension. */
  path: string;
  /** EXTENSIONS_MUST_LOAD: extension ids (or folder names) whose failure to load stops the start. */
  mustLoad: string[];
  /** EXTENSIONS_HOOK_TIMEOUT (5s): a filter hook slower than this fails the request; an action hook is logged. */
  hookTimeoutMs: number;
}

export interface MetricsConfig {
  /** METRICS_ENABLED (false). */
  enabled: boolean;
  /** METRICS_NAME_PREFIX (svc_). */
  namePrefix: string;
}

export interface PressureConfig {
  /** PRESSURE_LIMITER_ENABLED, or SPEC.md's PRESSURE_ENABLED (true): the admission gate and the backstops below. */
  enabled: boolean;
  /** PRESSURE_ADMISSION_CONCURRENCY (0 = no gate): requests worked on at once per process. Default: DB_POOL_MAX
   * with DATABASE_URL, so an admitted request finds a pool connection instead of waiting up to the pool's 5 s
   * connect timeout; 4 on the embedded PGlite, which is one connection in this process: a few requests in flight
   * let one's JavaScript (authentication, serialisation) run while another's query holds the engine, more only
   * lengthen the line at its lock. */
  admissionConcurrency: number;
  /** PRESSURE_ADMISSION_QUEUE (1000; 0 = none wait): requests that may wait for a slot; one more is refused at once.
   * Long enough that a burst of connections waits a few ms instead of retrying against 503s (answering those
   * keeps the loop as busy as serving); the wait budget bounds the time, this bounds the line. */
  admissionQueue: number;
  /** PRESSURE_ADMISSION_MAX_WAIT (1s): a request still waiting for a slot after this is refused. */
  admissionMaxWaitMs: number;
  /** PRESSURE_LIMITER_SAMPLE_INTERVAL (250 ms): how often the loop is sampled. */
  sampleIntervalMs: number;
  /** PRESSURE_LIMITER_MAX_EVENT_LOOP_DELAY (500 ms; 0 = off): backstop, p99 event-loop delay over the last interval. */
  maxEventLoopDelayMs: number;
  /** PRESSURE_LIMITER_MAX_EVENT_LOOP_UTILIZATION (0 = off, the default): a busy loop that keeps up is healthy, and
   * a flood keeps the loop busy even when it answers only 503s, so this limit shed a healthy server. */
  maxEventLoopUtilization: number;
  /** PRESSURE_LIMITER_MAX_MEMORY_HEAP_USED (bytes; 0 = off): backstop. */
  maxMemoryHeapUsed: number;
  /** PRESSURE_LIMITER_MAX_MEMORY_RSS (bytes; 0 = off): backstop. */
  maxMemoryRss: number;
  /** PRESSURE_LIMITER_RETRY_AFTER (seconds, default 1): the Retry-After of a 503. */
  retryAfterSeconds: number;
}

export interface GraphqlConfig {
  /** GRAPHQL_INTROSPECTION (true). */
  introspection: boolean;
  /** GRAPHQL_MAX_DEPTH (10): nesting of selection sets. */
  maxDepth: number;
  /** GRAPHQL_MAX_ALIASES (25): aliases in one document. */
  maxAliases: number;
  /** GRAPHQL_MAX_COST (100): estimated SQL statements and levels one document may cost. */
  maxCost: number;
  /** GRAPHQL_QUERY_TOKEN_LIMIT (5000): lexical tokens in one document. */
  maxTokens: number;
}

export interface TransferConfig {
  /** IMPORT_MAX_SIZE (100mb): the largest import body. */
  importMaxSize: number;
  /** IMPORT_BATCH_SIZE (500): rows written per insert batch of an import (all in one transaction). */
  importBatchSize: number;
  /** IMPORT_MAX_LINE_SIZE (1mb): the longest CSV record an import accepts. */
  importMaxLineSize: number;
  /** EXPORT_BATCH_SIZE (5000): rows read per page of an export. */
  exportBatchSize: number;
}

export interface NotifyConfig {
  /** NOTIFY_MAX_ATTEMPTS (5): sends tried before a log is failed. */
  maxAttempts: number;
  /** NOTIFY_SCAN_INTERVAL (5s): how often the worker looks for due logs without being woken. */
  scanIntervalMs: number;
  /** NOTIFY_RETRY_DELAY (30s): the first retry's delay, doubled on each further attempt. */
  retryDelayMs: number;
  /** NOTIFY_RETRY_MAX_DELAY (1h): the cap of that backoff. */
  retryMaxDelayMs: number;
  /** NOTIFY_LEASE (5m): a log left in sending this long (its worker died) is taken again. */
  leaseMs: number;
}

/** The action event outbox (core/events/outbox.ts, relay.ts). */
export interface EventsConfig {
  /** EVENTS_RELAY_INTERVAL (1s): how often the container's relay looks for events nobody sent. */
  relayIntervalMs: number;
  /** EVENTS_RELAY_GRACE (10s): how long after commit the relay leaves an event to the process that wrote it. */
  relayGraceMs: number;
  /** EVENTS_RELAY_RETRY_MAX_DELAY (30s): the cap of the relay's backoff while the Queue refuses sends. */
  relayRetryMaxDelayMs: number;
  /** TEST_EVENTS_PAUSE_BEFORE_SEND (unset: 0): a pause between commit and send, for fault tests only. */
  testPauseBeforeSendMs: number;
}

/** Realtime subscriptions (docs/realtime.md). */
export interface RealtimeConfig {
  /** WEBSOCKETS_ENABLED (true): /websocket and /realtime are served (container half and standalone). */
  enabled: boolean;
  /** WEBSOCKETS_REST_AUTH (handshake): how a socket authenticates: handshake, strict or public. */
  authMode: 'handshake' | 'strict' | 'public';
  /** WEBSOCKETS_AUTH_TIMEOUT (10s): how long a socket may go without a valid credential in handshake mode. */
  authTimeoutMs: number;
  /** WEBSOCKETS_HEARTBEAT_PERIOD (30s): the server's ping period; a socket silent for two periods is closed. */
  heartbeatMs: number;
  /** WEBSOCKETS_MAX_SUBSCRIPTIONS (100): subscriptions one connection may hold. */
  maxSubscriptions: number;
  /** WEBSOCKETS_MAX_MESSAGE_SIZE (1mb): the largest inbound frame. */
  maxMessageBytes: number;
  /** WEBSOCKETS_MAX_BUFFER (4mb): a connection whose unsent output exceeds this is dropped (a slow consumer). */
  maxBufferBytes: number;
  /** REALTIME_RETENTION (10m): how long events are kept for resume. */
  retentionMs: number;
  /** REALTIME_RETENTION_EVENTS (100000): at most this many events are kept for resume. */
  retentionEvents: number;
}

type Env = Record<string, string | undefined>;

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

export function parseBytes(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!m) throw new Error(`Invalid byte size "${value}"`);
  return Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]);
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseDuration(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(value);
  if (!m) throw new Error(`Invalid duration "${value}"`);
  return Math.floor(Number(m[1]) * DURATION_UNITS[(m[2] ?? 'ms').toLowerCase()]);
}

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return n;
}

function str(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function num(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return raw === 'false' ? 0 : fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

/** A byte size, or 0 (off) when unset or `false`. */
function bytesOrOff(env: Env, name: string): number {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return 0;
  return parseBytes(raw);
}

function opt(env: Env, name: string): string | null {
  const raw = env[name];
  return raw === undefined || raw === '' ? null : raw;
}

function csvList(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((v) => v.trim()).filter(Boolean);
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = str(env, name, fallback);
  if (!(values as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function emailTransport(value: string): 'smtp' | 'sendmail' {
  if (value !== 'smtp' && value !== 'sendmail') throw new Error(`EMAIL_TRANSPORT must be smtp or sendmail, got "${value}"`);
  return value;
}

/** 0 turns a budget off; the long budget is off whenever the normal one is, and never shorter than it. */
function statementTimeouts(env: Env): { dbStatementTimeoutMs: number; dbLongStatementTimeoutMs: number; dbIdleInTransactionTimeoutMs: number } {
  const normal = parseDuration(str(env, 'DB_STATEMENT_TIMEOUT', '5s'));
  const long = parseDuration(str(env, 'DB_LONG_STATEMENT_TIMEOUT', '10m'));
  return {
    dbStatementTimeoutMs: normal,
    dbLongStatementTimeoutMs: normal === 0 || long === 0 ? 0 : Math.max(normal, long),
    dbIdleInTransactionTimeoutMs: parseDuration(str(env, 'DB_IDLE_IN_TRANSACTION_TIMEOUT', '10s')),
  };
}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const logLevel = str(env, 'LOG_LEVEL', 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const host = str(env, 'HOST', '127.0.0.1');
  const port = int(env, 'PORT', 8055);
  const secret = opt(env, 'SECRET');
  return {
    host,
    port,
    publicUrl: str(env, 'PUBLIC_URL', `http://${host}:${port}`),
    nodeEnv: str(env, 'NODE_ENV', 'development'),
    logLevel,
    databaseUrl: opt(env, 'DATABASE_URL'),
    dataDir: str(env, 'DATA_DIR', './data'),
    dbPoolMax: int(env, 'DB_POOL_MAX', 10),
    ...statementTimeouts(env),
    pgliteWasmCompiler: oneOf(env, 'PGLITE_WASM_COMPILER', ['baseline', 'optimizing'] as const, 'baseline'),
    redisUrl: opt(env, 'REDIS_URL'),
    redisNamespace: str(env, 'REDIS_NAMESPACE', ''),
    secret: secret ?? randomBytes(32).toString('hex'),
    secretGenerated: secret === null,
    accessTokenTtlMs: parseDuration(str(env, 'ACCESS_TOKEN_TTL', '15m')),
    refreshTokenTtlMs: parseDuration(str(env, 'REFRESH_TOKEN_TTL', '7d')),
    adminEmail: opt(env, 'ADMIN_EMAIL'),
    adminPassword: opt(env, 'ADMIN_PASSWORD'),
    projectName: str(env, 'PROJECT_NAME', 'svc'),
    maxPayloadSize: parseBytes(str(env, 'MAX_PAYLOAD_SIZE', '1mb')),
    schemaMaxPayloadSize: parseBytes(str(env, 'SCHEMA_MAX_PAYLOAD_SIZE', '32mb')),
    querystringMaxParseDepth: int(env, 'QUERYSTRING_MAX_PARSE_DEPTH', 10),
    queryLimitDefault: int(env, 'QUERY_LIMIT_DEFAULT', 100),
    queryLimitMax: int(env, 'QUERY_LIMIT_MAX', -1),
    maxBatchMutation: int(env, 'MAX_BATCH_MUTATION', 10_000),
    maxRelationalDepth: int(env, 'MAX_RELATIONAL_DEPTH', 10),
    rateLimiter: parseRateLimitConfig(env),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    emailFrom: str(env, 'EMAIL_FROM', 'no-reply@example.com'),
    emailTransport: emailTransport(str(env, 'EMAIL_TRANSPORT', 'smtp')),
    emailSmtpHost: str(env, 'EMAIL_SMTP_HOST', 'localhost'),
    emailSmtpPort: int(env, 'EMAIL_SMTP_PORT', 587),
    emailSmtpUser: opt(env, 'EMAIL_SMTP_USER'),
    emailSmtpPassword: opt(env, 'EMAIL_SMTP_PASSWORD'),
    emailSmtpSecure: str(env, 'EMAIL_SMTP_SECURE', 'false') === 'true',
    userInviteTokenTtlMs: parseDuration(str(env, 'USER_INVITE_TOKEN_TTL', '7d')),
    passwordResetTokenTtlMs: parseDuration(str(env, 'PASSWORD_RESET_TOKEN_TTL', '1d')),
    authLockoutCooldownMs: Math.max(1000, parseDuration(str(env, 'AUTH_LOCKOUT_COOLDOWN', '15m'))),
    userInviteUrlAllowList: csvList(env, 'USER_INVITE_URL_ALLOW_LIST'),
    passwordResetUrlAllowList: csvList(env, 'PASSWORD_RESET_URL_ALLOW_LIST'),
    userRegisterUrlAllowList: csvList(env, 'USER_REGISTER_URL_ALLOW_LIST'),
    authProviders: parseSsoEnv(env),
    files: parseFilesConfig(env, { bytes: parseBytes, duration: parseDuration }),
    sqsQueueUrl: opt(env, 'SQS_QUEUE_URL'),
    sqsEndpoint: opt(env, 'SQS_ENDPOINT'),
    awsRegion: str(env, 'AWS_REGION', 'us-east-1'),
    studioPreviewOrigins: csvList(env, 'STUDIO_PREVIEW_ORIGINS'),
    workflowTimeoutIntervalMs: parseDuration(str(env, 'WORKFLOW_TIMEOUT_INTERVAL', '30s')),
    publishScheduleIntervalMs: Math.max(10, parseDuration(str(env, 'PUBLISH_SCHEDULE_INTERVAL', '5s'))),
    notify: {
      maxAttempts: Math.max(1, int(env, 'NOTIFY_MAX_ATTEMPTS', 5)),
      scanIntervalMs: Math.max(10, parseDuration(str(env, 'NOTIFY_SCAN_INTERVAL', '5s'))),
      retryDelayMs: parseDuration(str(env, 'NOTIFY_RETRY_DELAY', '30s')),
      retryMaxDelayMs: parseDuration(str(env, 'NOTIFY_RETRY_MAX_DELAY', '1h')),
      leaseMs: Math.max(1000, parseDuration(str(env, 'NOTIFY_LEASE', '5m'))),
    },
    events: {
      relayIntervalMs: Math.max(10, parseDuration(str(env, 'EVENTS_RELAY_INTERVAL', '1s'))),
      relayGraceMs: parseDuration(str(env, 'EVENTS_RELAY_GRACE', '10s')),
      relayRetryMaxDelayMs: Math.max(10, parseDuration(str(env, 'EVENTS_RELAY_RETRY_MAX_DELAY', '30s'))),
      testPauseBeforeSendMs: env.TEST_EVENTS_PAUSE_BEFORE_SEND ? parseDuration(env.TEST_EVENTS_PAUSE_BEFORE_SEND) : 0,
    },
    realtime: {
      enabled: bool(env, 'WEBSOCKETS_ENABLED', true),
      authMode: oneOf(env, 'WEBSOCKETS_REST_AUTH', ['handshake', 'strict', 'public'] as const, 'handshake'),
      authTimeoutMs: Math.max(100, parseDuration(str(env, 'WEBSOCKETS_AUTH_TIMEOUT', '10s'))),
      heartbeatMs: Math.max(100, parseDuration(str(env, 'WEBSOCKETS_HEARTBEAT_PERIOD', '30s'))),
      maxSubscriptions: Math.max(1, int(env, 'WEBSOCKETS_MAX_SUBSCRIPTIONS', 100)),
      maxMessageBytes: Math.max(1024, parseBytes(str(env, 'WEBSOCKETS_MAX_MESSAGE_SIZE', '1mb'))),
      maxBufferBytes: Math.max(64 * 1024, parseBytes(str(env, 'WEBSOCKETS_MAX_BUFFER', '4mb'))),
      retentionMs: Math.max(1000, parseDuration(str(env, 'REALTIME_RETENTION', '10m'))),
      retentionEvents: Math.max(100, int(env, 'REALTIME_RETENTION_EVENTS', 100_000)),
    },
    metrics: {
      enabled: bool(env, 'METRICS_ENABLED', false),
      namePrefix: str(env, 'METRICS_NAME_PREFIX', 'svc_'),
    },
    pressure: {
      enabled: bool(env, 'PRESSURE_LIMITER_ENABLED', bool(env, 'PRESSURE_ENABLED', true)),
      admissionConcurrency: Math.max(0, int(env, 'PRESSURE_ADMISSION_CONCURRENCY',
        opt(env, 'DATABASE_URL') ? Math.max(1, int(env, 'DB_POOL_MAX', 10)) : 4)),
      admissionQueue: Math.max(0, int(env, 'PRESSURE_ADMISSION_QUEUE', 1000)),
      admissionMaxWaitMs: parseDuration(str(env, 'PRESSURE_ADMISSION_MAX_WAIT', '1s')),
      sampleIntervalMs: Math.max(10, int(env, 'PRESSURE_LIMITER_SAMPLE_INTERVAL', 250)),
      maxEventLoopDelayMs: num(env, 'PRESSURE_LIMITER_MAX_EVENT_LOOP_DELAY', 500),
      maxEventLoopUtilization: num(env, 'PRESSURE_LIMITER_MAX_EVENT_LOOP_UTILIZATION', 0),
      maxMemoryHeapUsed: bytesOrOff(env, 'PRESSURE_LIMITER_MAX_MEMORY_HEAP_USED'),
      maxMemoryRss: bytesOrOff(env, 'PRESSURE_LIMITER_MAX_MEMORY_RSS'),
      retryAfterSeconds: Math.max(1, int(env, 'PRESSURE_LIMITER_RETRY_AFTER', 1)),
    },
    graphql: {
      introspection: bool(env, 'GRAPHQL_INTROSPECTION', true),
      maxDepth: Math.max(1, int(env, 'GRAPHQL_MAX_DEPTH', 10)),
      maxAliases: Math.max(0, int(env, 'GRAPHQL_MAX_ALIASES', 25)),
      maxCost: Math.max(1, int(env, 'GRAPHQL_MAX_COST', 100)),
      maxTokens: Math.max(100, int(env, 'GRAPHQL_QUERY_TOKEN_LIMIT', 5000)),
    },
    extensions: {
      path: str(env, 'EXTENSIONS_PATH', './extensions'),
      mustLoad: csvList(env, 'EXTENSIONS_MUST_LOAD'),
      hookTimeoutMs: Math.max(1, parseDuration(str(env, 'EXTENSIONS_HOOK_TIMEOUT', '5s'))),
    },
    http: {
      headersTimeoutMs: Math.max(1, parseDuration(str(env, 'HTTP_HEADERS_TIMEOUT', '60s'))),
      requestTimeoutMs: Math.max(1, parseDuration(str(env, 'HTTP_REQUEST_TIMEOUT', '5m'))),
      keepAliveTimeoutMs: Math.max(1, parseDuration(str(env, 'HTTP_KEEP_ALIVE_TIMEOUT', '5s'))),
      socketTimeoutMs: parseDuration(str(env, 'HTTP_SOCKET_TIMEOUT', '2m')),
      shutdownTimeoutMs: parseDuration(str(env, 'SHUTDOWN_TIMEOUT', '10s')),
    },
    mcp: {
      enabled: bool(env, 'MCP_ENABLED', false),
      maxRows: Math.max(1, int(env, 'MCP_MAX_ROWS', 100)),
      maxResultBytes: Math.max(1024, parseBytes(str(env, 'MCP_MAX_RESULT_SIZE', '512kb'))),
    },
    transfer: {
      importMaxSize: parseBytes(str(env, 'IMPORT_MAX_SIZE', '100mb')),
      importBatchSize: Math.max(1, int(env, 'IMPORT_BATCH_SIZE', 500)),
      importMaxLineSize: parseBytes(str(env, 'IMPORT_MAX_LINE_SIZE', '1mb')),
      exportBatchSize: Math.max(1, int(env, 'EXPORT_BATCH_SIZE', 5000)),
    },
  };
}
