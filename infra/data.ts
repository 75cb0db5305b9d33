/** Stateful resources shared by both halves: network, Postgres, Redis, the queue, the object store, secrets. */

export function createData() {
  const vpc = new sst.aws.Vpc('Vpc', { nat: 'ec2' });

  const database = new sst.aws.Postgres('Database', {
    vpc,
    version: '16.4',
    instance: $app.stage === 'production' ? 'm7g.large' : 't4g.micro',
    storage: '20 GB',
    database: 'svc',
    // Lambda opens many short-lived connections: RDS Proxy pools them in front of the instance.
    proxy: true,
    multiAz: $app.stage === 'production',
  });

  // Cluster mode off: one primary node, so core/store's plain ioredis client works unchanged.
  const redis = new sst.aws.Redis('Redis', { vpc, engine: 'valkey', cluster: false });

  // Notify jobs and events for action hooks: produced by the functions, consumed by the container's worker.
  const queue = new sst.aws.Queue('Jobs', { visibilityTimeout: '120 seconds' });

  // Original uploads and transformed assets. Private: bytes are served by the container, cached at the edge.
  const bucket = new sst.aws.Bucket('Files');

  const secret = new sst.Secret('Secret');
  const adminEmail = new sst.Secret('AdminEmail', 'admin@example.com');
  const adminPassword = new sst.Secret('AdminPassword');

  return { vpc, database, redis, queue, bucket, secret, adminEmail, adminPassword };
}

export type Data = ReturnType<typeof createData>;
