/** The environment both halves start from (the names core/config.ts reads), built from deployed resources. */
import type { Data } from './data.ts';

export function sharedEnvironment(data: Data): Record<string, $util.Input<string>> {
  const { database, redis } = data;
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATABASE_URL: $util
      .all([database.username, database.password, database.host, database.port, database.database])
      .apply(([user, password, host, port, name]) =>
        `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}/${name}`),
    // ElastiCache in SST has TLS and auth on: rediss://
    REDIS_URL: $util
      .all([redis.username, redis.password, redis.host, redis.port])
      .apply(([user, password, host, port]) => `rediss://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${host}:${port}`),
    SECRET: data.secret.value,
    ADMIN_EMAIL: data.adminEmail.value,
    ADMIN_PASSWORD: data.adminPassword.value,
    // Read by the queue and storage adapters as they land (DESIGN.md > One process or many).
    SQS_QUEUE_URL: data.queue.url,
    STORAGE_LOCATIONS: 'objectstore',
    STORAGE_OBJECTSTORE_DRIVER: 'objectstore',
    STORAGE_OBJECTSTORE_BUCKET: data.bucket.name,
  };
}
