/** The long-running half on ECS/Fargate: assets (range, transforms), tus, multipart uploads, the notify worker,
 * the extension host. Same image as docker-compose.yml, SVC_MODE=container. It runs the migrations at start. */
import type { Data } from './data.ts';

export function createContainer(data: Data, environment: Record<string, $util.Input<string>>) {
  const cluster = new sst.aws.Cluster('Cluster', { vpc: data.vpc });
  const service = new sst.aws.Service('Container', {
    cluster,
    image: { context: '.', dockerfile: 'Dockerfile' },
    cpu: '1 vCPU',
    memory: '2 GB',
    // Scratch space for transformed assets and tus chunks before they reach the bucket.
    storage: '30 GB',
    link: [data.database, data.redis, data.queue, data.bucket],
    environment: { ...environment, SVC_MODE: 'container', HOST: '0.0.0.0', PORT: '8055' },
    loadBalancer: {
      ports: [{ listen: '80/http', forward: '8055/http' }],
      health: { '8055/http': { path: '/server/health', interval: '15 seconds' } },
    },
    scaling: { min: 1, max: $app.stage === 'production' ? 4 : 1, cpuUtilization: 70 },
  });
  return { cluster, service };
}
