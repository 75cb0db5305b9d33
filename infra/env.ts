/** The environment of both halves: the names core/config.ts (and functions/lambda.ts, container/main.ts) read,
 * built from the deployed resources, the SST secrets and the deploy-time settings. */
import { ALB_IDLE_TIMEOUT_SECONDS } from './container.ts';
import type { Data } from './data.ts';
import { passThrough, region, type DeployEnv } from './settings.ts';

export type Environment = Record<string, $util.Input<string>>;

/** Postgres connections per Lambda instance: one request at a time per instance, RDS Proxy multiplexes them. */
export const FUNCTIONS_DB_POOL_MAX = '2';
/** Postgres connections of one container task (uploads, assets, workers, migrations). */
export const CONTAINER_DB_POOL_MAX = '10';

export function sharedEnvironment(data: Data, publicUrl: $util.Input<string>, env: DeployEnv = process.env): Environment {
  const { database, redis, secrets } = data;
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    PUBLIC_URL: publicUrl,
    // With `proxy: true` the component's host is the RDS Proxy endpoint.
    DATABASE_URL: $util
      .all([database.username, database.password, database.host, database.port, database.database])
      .apply(([user, password, host, port, name]) =>
        `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${name}`),
    // ElastiCache in SST has TLS and auth on: rediss://
    REDIS_URL: $util
      .all([redis.username, redis.password, redis.host, redis.port])
      .apply(([user, password, host, port]) => `rediss://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}`),
    // Rate limits must be shared by all Lambda instances and tasks, not counted per process.
    RATE_LIMITER_STORE: 'shared',
    SECRET: secrets.secret.value,
    ADMIN_EMAIL: secrets.adminEmail.value,
    ADMIN_PASSWORD: secrets.adminPassword.value,
    EMAIL_SMTP_USER: secrets.smtpUser.value,
    EMAIL_SMTP_PASSWORD: secrets.smtpPassword.value,
    SQS_QUEUE_URL: data.queue.url,
    ...passThrough(env),
  };
}

/** The Lambda half. AWS_REGION is set by Lambda itself (a reserved name there). */
export function functionsEnvironment(shared: Environment): Environment {
  return {
    ...shared,
    SVC_MODE: 'functions',
    DB_POOL_MAX: FUNCTIONS_DB_POOL_MAX,
    // The container migrates at start; a cold start never does (functions/lambda.ts).
    SVC_RUN_MIGRATIONS: 'false',
    // infra/api.ts copies ./extensions into the bundle (/var/task).
    EXTENSIONS_PATH: './extensions',
  };
}

/** HTTP_KEEP_ALIVE_TIMEOUT of the container: longer than the load balancer's idle timeout (infra/container.ts), so
 * the ALB, not the task, closes an idle connection between them (AWS's advice for targets; the default 5 s would
 * let a request race the task's close and come back as a 502). */
export const CONTAINER_KEEP_ALIVE_TIMEOUT = `${ALB_IDLE_TIMEOUT_SECONDS + 5}s`;

/** The container half (ECS/Fargate): paths are the image's (Dockerfile). */
export function containerEnvironment(shared: Environment, env: DeployEnv = process.env): Environment {
  return {
    ...shared,
    SVC_MODE: 'container',
    HOST: '0.0.0.0',
    PORT: '8055',
    AWS_REGION: region(env),
    DB_POOL_MAX: CONTAINER_DB_POOL_MAX,
    DATA_DIR: '/app/data',
    // Ephemeral task storage: tus staging of local providers and the built-in `local` fallback only.
    STORAGE_LOCAL_ROOT: '/app/uploads',
    EXTENSIONS_PATH: '/app/extensions',
    HTTP_KEEP_ALIVE_TIMEOUT: CONTAINER_KEEP_ALIVE_TIMEOUT,
  };
}
