/** The long-running half on ECS/Fargate: assets (range, transforms), tus, multipart uploads, imports and exports,
 * the notify worker, the extension host. The image of ./Dockerfile (the same as docker-compose.yml's),
 * SVC_MODE=container. It runs the migrations at start. */
import { links, type Data } from './data.ts';
import type { Environment } from './env.ts';
import { containerDomain, type DeployEnv } from './settings.ts';

export const HEALTH_PATH = '/server/health';

export function createContainer(data: Data, environment: Environment, env: DeployEnv = process.env) {
  const production = $app.stage === 'production';
  const domain = containerDomain(env);
  const cluster = new sst.aws.Cluster('Cluster', { vpc: data.vpc });
  const service = new sst.aws.Service('Container', {
    cluster,
    image: { context: '.', dockerfile: 'Dockerfile' },
    architecture: 'x86_64',
    cpu: '1 vCPU',
    memory: '2 GB',
    // Scratch space for tus chunks of local providers and the built-in local fallback.
    storage: '30 GB',
    link: links(data),
    environment,
    loadBalancer: {
      // CloudFront (infra/router.ts) is the client; with a domain the origin is reached over HTTPS.
      ...(domain ? { domain } : {}),
      ports: [domain ? { listen: '443/https', forward: '8055/http' } : { listen: '80/http', forward: '8055/http' }],
      health: { '8055/http': { path: HEALTH_PATH, interval: '15 seconds', timeout: '5 seconds', healthyThreshold: 2, unhealthyThreshold: 3 } },
    },
    // ECS restarts a task whose own check fails (event loop stuck), independently of the target group.
    health: {
      command: ['CMD', 'node', '-e', `fetch('http://127.0.0.1:8055${HEALTH_PATH}').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`],
      startPeriod: '60 seconds',
      interval: '15 seconds',
      timeout: '5 seconds',
      retries: 3,
    },
    scaling: { min: production ? 2 : 1, max: production ? 8 : 2, cpuUtilization: 70, memoryUtilization: 80 },
  });
  return { cluster, service };
}
