/** The production topology (DESIGN.md > Split): API Gateway HTTP API -> Lambda (functions/), ECS/Fargate
 * service (container/), RDS Postgres behind RDS Proxy, ElastiCache (Valkey/Redis), SQS, S3, and a CloudFront
 * router in front of both. */
import { createApi } from './api.ts';
import { createContainer } from './container.ts';
import { createData } from './data.ts';
import { sharedEnvironment } from './env.ts';
import { createRouter } from './router.ts';

export function deploy() {
  const data = createData();
  const environment = sharedEnvironment(data);
  const { api } = createApi(data, environment);
  const { service } = createContainer(data, environment);
  const router = createRouter(api.url, service.url);
  return {
    url: router.url,
    api: api.url,
    container: service.url,
    bucket: data.bucket.name,
    queue: data.queue.url,
  };
}
