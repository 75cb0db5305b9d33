/** `svc doctor`: whether this configuration can run: the configuration itself, the database and its migrations,
 * Redis, every storage provider, SQS and mail, each a line with what to do about a problem. Mail is a warning, not
 * a failure: the service runs without it, only invitations, resets and notifications wait. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { withPersistentSecret } from '../../core/auth/secret.ts';
import { PG_SUBDIR } from '../../core/backup/manifest.ts';
import { loadConfig, type Config } from '../../core/config.ts';
import { openDatabase, run, type Database } from '../../core/db/database.ts';
import { pendingMigrations } from '../../core/db/migrate.ts';
import { verifyMail } from '../../core/mail/mailer.ts';
import { StorageRegistry } from '../../core/storage/registry.ts';
import { EXIT, type Output } from './output.ts';

export interface Check { check: string; status: 'ok' | 'warn' | 'fail'; detail: string; fix?: string }

const message = (err: unknown): string => {
  const e = err as Error & { errors?: Error[] };
  // Node's connection errors to several addresses (localhost: ::1 and 127.0.0.1) say which in `errors`.
  return (e.errors?.[0]?.message ?? e.message ?? String(err)).split('\n')[0];
};

async function within<T>(ms: number, what: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([what, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

async function checkDatabase(config: Config, checks: Check[]): Promise<Database | null> {
  if (!config.databaseUrl && existsSync(join(config.dataDir, PG_SUBDIR, 'postmaster.pid'))) {
    checks.push({ check: 'database', status: 'ok', detail: `the embedded database in ${config.dataDir} is held by a running server (not opened)` });
    return null;
  }
  let database: Database;
  try {
    database = await within(15_000, openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2, wasmCompiler: config.pgliteWasmCompiler }));
    const [row] = await run<{ v: string }>(database.db, 'select version() as v');
    const version = row.v.split(' on ')[0].replace(/,.*$/, '');
    const pending = (await pendingMigrations(database)).length;
    const where = config.databaseUrl ? new URL(config.databaseUrl).host + new URL(config.databaseUrl).pathname : `embedded in ${config.dataDir}`;
    checks.push(pending
      ? { check: 'database', status: 'warn', detail: `${version} (${where}), ${pending} migrations pending`, fix: 'run `svc migrate`, or start the server (it migrates at start)' }
      : { check: 'database', status: 'ok', detail: `${version} (${where}), migrations current` });
    return database;
  } catch (err) {
    checks.push({
      check: 'database', status: 'fail', detail: message(err),
      fix: config.databaseUrl ? 'check DATABASE_URL (host, port, user, password, database) and that Postgres runs' : `check that DATA_DIR (${config.dataDir}) is writable`,
    });
    return null;
  }
}

async function checkRedis(config: Config, checks: Check[]): Promise<void> {
  if (!config.redisUrl) {
    checks.push({ check: 'redis', status: 'ok', detail: 'not used (REDIS_URL unset: one process, caches in memory)' });
    return;
  }
  const { Redis } = await import('ioredis');
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 5000 });
  redis.on('error', () => {});
  try {
    await within(6000, redis.connect().then(() => redis.ping()));
    checks.push({ check: 'redis', status: 'ok', detail: `answers at ${new URL(config.redisUrl).host}` });
  } catch (err) {
    checks.push({ check: 'redis', status: 'fail', detail: message(err), fix: 'start Redis, or correct REDIS_URL (or unset it to run one process)' });
  } finally {
    redis.disconnect();
  }
}

async function checkStorage(config: Config, database: Database | null, checks: Check[]): Promise<void> {
  if (!database) return;
  try {
    const providers = await new StorageRegistry(database.db, config).providers('doctor');
    for (const name of providers.names) {
      const driver = providers.get(name);
      try {
        // A listing needs the endpoint, the bucket and the credentials to be right (a missing object alone does not:
        // some stores answer "absent" for a bucket that does not exist either).
        await within(10_000, (async () => {
          for await (const _key of driver.list(`svc-doctor-${randomUUID()}/`)) break;
        })());
        checks.push({ check: `storage ${name}`, status: 'ok', detail: `${driver.driver} storage answers${name === providers.defaultName ? ' (default for uploads)' : ''}` });
      } catch (err) {
        checks.push({
          check: `storage ${name}`, status: 'fail', detail: message(err),
          fix: driver.driver === 'local' ? 'check that STORAGE_LOCAL_ROOT exists and is readable' : 'check the endpoint, bucket, region and keys of the provider (Settings > Storage in the Studio)',
        });
      }
    }
  } catch (err) {
    checks.push({ check: 'storage', status: 'fail', detail: message(err), fix: 'check the storage provider records and SECRET (they are encrypted with it)' });
  }
}

async function checkQueue(config: Config, checks: Check[]): Promise<void> {
  if (!config.sqsQueueUrl) {
    checks.push({ check: 'queue', status: 'ok', detail: 'in-process (SQS_QUEUE_URL unset)' });
    return;
  }
  const { SQSClient, GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
  const client = new SQSClient({ region: config.awsRegion, ...(config.sqsEndpoint ? { endpoint: config.sqsEndpoint } : {}) });
  try {
    await within(10_000, client.send(new GetQueueAttributesCommand({ QueueUrl: config.sqsQueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] })));
    checks.push({ check: 'queue', status: 'ok', detail: `SQS queue answers (${config.sqsQueueUrl})` });
  } catch (err) {
    checks.push({ check: 'queue', status: 'fail', detail: message(err), fix: 'check SQS_QUEUE_URL, AWS_REGION and the credentials (and SQS_ENDPOINT for an emulator)' });
  } finally {
    client.destroy();
  }
}

async function checkMail(config: Config, checks: Check[]): Promise<void> {
  if (config.emailTransport === 'sendmail') {
    checks.push({ check: 'mail', status: existsSync('/usr/sbin/sendmail') ? 'ok' : 'warn', detail: 'sendmail', fix: existsSync('/usr/sbin/sendmail') ? undefined : 'install sendmail, or set EMAIL_TRANSPORT=smtp and EMAIL_SMTP_*' });
    return;
  }
  try {
    await within(15_000, verifyMail(config));
    checks.push({ check: 'mail', status: 'ok', detail: `SMTP ${config.emailSmtpHost}:${config.emailSmtpPort} accepts us` });
  } catch (err) {
    checks.push({
      check: 'mail', status: 'warn', detail: `SMTP ${config.emailSmtpHost}:${config.emailSmtpPort}: ${message(err)}`,
      fix: 'set EMAIL_SMTP_HOST, EMAIL_SMTP_PORT and EMAIL_SMTP_USER/PASSWORD (needed for invitations, password resets and notifications)',
    });
  }
}

export async function runDoctor(env: NodeJS.ProcessEnv = process.env): Promise<Check[]> {
  const checks: Check[] = [];
  let config: Config;
  try {
    config = withPersistentSecret(loadConfig(env));
  } catch (err) {
    checks.push({ check: 'configuration', status: 'fail', detail: message(err), fix: 'correct the environment variable it names (docs/configuration.md)' });
    return checks;
  }
  checks.push(config.secretGenerated
    ? { check: 'configuration', status: 'warn', detail: 'SECRET is not set: tokens do not survive a restart and other instances reject them', fix: 'set SECRET to a long random value, the same on every instance' }
    : { check: 'configuration', status: 'ok', detail: `read (${config.databaseUrl ? 'Postgres' : 'embedded database'}${config.redisUrl ? ', Redis' : ''}${config.sqsQueueUrl ? ', SQS' : ''})` });
  const database = await checkDatabase(config, checks);
  try {
    await checkRedis(config, checks);
    await checkStorage(config, database, checks);
    await checkQueue(config, checks);
    await checkMail(config, checks);
  } finally {
    await database?.close();
  }
  return checks;
}

export async function doctorCommand(out: Output): Promise<number> {
  const checks = await runDoctor();
  const mark = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;
  out.result(checks, () => checks.map((c) => `${mark[c.status]}  ${c.check.padEnd(16)} ${c.detail}${c.fix ? `\n      -> ${c.fix}` : ''}`));
  return checks.some((c) => c.status === 'fail') ? EXIT.failed : EXIT.ok;
}
