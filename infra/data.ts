/** Stateful resources shared by both halves: network, Postgres (behind RDS Proxy), Redis, the queue with its
 * dead-letter queue, the object store bucket, and the secrets. */

/** Receives of one message before SQS moves it to the dead-letter queue (the redrive policy's maxReceiveCount). */
export const QUEUE_MAX_RECEIVES = 5;
/** The dead-letter queue keeps messages for SQS' maximum, 14 days, to be inspected and redriven. */
export const DLQ_RETENTION_SECONDS = 14 * 24 * 3600;

export function createData() {
  const production = $app.stage === 'production';
  // Private subnets for the function, the service, the database and Redis; a NAT instance ("ec2", cheaper than a
  // managed NAT gateway) lets the function reach SQS and S3.
  const vpc = new sst.aws.Vpc('Vpc', { nat: 'ec2', az: 2 });

  const database = new sst.aws.Postgres('Database', {
    vpc,
    version: '16.4',
    instance: production ? 'm7g.large' : 't4g.micro',
    storage: '20 GB',
    database: 'svc',
    // Lambda opens many short-lived connections: RDS Proxy pools them in front of the instance, and the
    // `host` of the component is then the proxy's endpoint (infra/env.ts builds DATABASE_URL from it).
    proxy: true,
    multiAz: production,
  });

  // Cluster mode off: one primary node, so core/store's plain ioredis client works unchanged.
  const redis = new sst.aws.Redis('Redis', { vpc, engine: 'valkey', cluster: false, instance: production ? 'm7g.large' : 't4g.micro' });

  // Notify wake-ups and action events: produced by the functions, consumed by the container's worker (SQS long
  // polling, not a Lambda subscriber). A message received QUEUE_MAX_RECEIVES times without being deleted moves to
  // the dead-letter queue; the database row stays the job (DESIGN.md > Durable jobs), so nothing is lost with it.
  const deadLetters = new sst.aws.Queue('JobsDead', { transform: { queue: { messageRetentionSeconds: DLQ_RETENTION_SECONDS } } });
  const queue = new sst.aws.Queue('Jobs', {
    // Longer than the worker takes for one message (a notify send or an action hook).
    visibilityTimeout: '120 seconds',
    dlq: { queue: deadLetters.arn, retry: QUEUE_MAX_RECEIVES },
  });

  // Original uploads and transformed assets. Private: bytes are served by the container, cached at the edge.
  const bucket = new sst.aws.Bucket('Files');

  // `npx sst secret set <Name> <value> --stage <stage>`; the ones with a placeholder are optional.
  const secret = new sst.Secret('Secret');
  const adminEmail = new sst.Secret('AdminEmail', 'admin@example.com');
  const adminPassword = new sst.Secret('AdminPassword');
  const smtpUser = new sst.Secret('EmailSmtpUser', '');
  const smtpPassword = new sst.Secret('EmailSmtpPassword', '');

  return { vpc, database, redis, queue, deadLetters, bucket, secrets: { secret, adminEmail, adminPassword, smtpUser, smtpPassword } };
}

export type Data = ReturnType<typeof createData>;

/** What both halves link: IAM permissions and `Resource.<Name>` for each. */
export function links(data: Data): sst.Linkable[] {
  const { secret, adminEmail, adminPassword, smtpUser, smtpPassword } = data.secrets;
  return [data.database, data.redis, data.queue, data.bucket, secret, adminEmail, adminPassword, smtpUser, smtpPassword];
}
