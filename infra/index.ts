/** The production topology (DESIGN.md > Split): a CloudFront router in front of an API Gateway HTTP API ->
 * Lambda (functions/) and an ECS/Fargate service (container/), with RDS Postgres behind RDS Proxy, ElastiCache
 * (Valkey, Redis protocol), SQS with a dead-letter queue, S3, and SST secrets; the Studio's files in a bucket of
 * their own, served by the same router at /admin (infra/studio.ts). */
import { createApi } from './api.ts';
import { createContainer } from './container.ts';
import { createData } from './data.ts';
import { containerEnvironment, functionsEnvironment, sharedEnvironment } from './env.ts';
import { addRoutes, createRouter } from './router.ts';
import { region, routerDomain } from './settings.ts';
import { createStudio } from './studio.ts';

export function deploy() {
  const data = createData();
  const router = createRouter(routerDomain());
  const shared = sharedEnvironment(data, router.url);
  const { api, handler } = createApi(data, functionsEnvironment(shared));
  const { service } = createContainer(data, containerEnvironment(shared));
  addRoutes(router, api.url, service.url);
  const studio = createStudio(router);
  return {
    url: router.url,
    // The router's URL + /admin.
    studio: studio.url,
    api: api.url,
    functions: handler.name,
    container: service.url,
    region: region(),
    bucket: data.bucket.name,
    queue: data.queue.url,
    deadLetterQueue: data.deadLetters.url,
  };
}
