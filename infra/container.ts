/** The long-running half on ECS/Fargate: assets (range, transforms), tus, multipart uploads, imports and exports,
 * realtime (/websocket, /realtime), the notify worker, the extension host. The image of ./Dockerfile (the same as docker-compose.yml's),
 * SVC_MODE=container. It runs the migrations at start. */
import { links, type Data } from './data.ts';
import type { Environment } from './env.ts';
import { containerDomain, type DeployEnv } from './settings.ts';

export const HEALTH_PATH = '/server/health';

/** The load balancer's idle timeout in seconds (ALB default 60): a connection with no byte either way for this long
 * is closed. An open WebSocket or SSE stream is idle between heartbeats (REALTIME_HEARTBEAT_SECONDS, 30 s); the
 * server itself closes a socket silent for two periods. 120 s (four periods) leaves that decision to the server and
 * survives a late heartbeat (a GC pause, a busy event loop) where 60 s would cut sockets on the first slip.
 * The container's own keep-alive timeout must then be longer still (CONTAINER_KEEP_ALIVE_TIMEOUT, infra/env.ts):
 * the ALB reuses idle connections to its targets for up to this long, and a target closing one first answers the
 * request that raced the close with a 502. */
export const ALB_IDLE_TIMEOUT_SECONDS = 120;

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
    transform: { loadBalancer: { idleTimeout: ALB_IDLE_TIMEOUT_SECONDS } },
  });
  return { cluster, service };
}
