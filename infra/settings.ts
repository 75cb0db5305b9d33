/** Deploy-time settings read from the shell that runs `sst deploy` (not secrets: those are SST secrets). */

export type DeployEnv = Record<string, string | undefined>;

/** The AWS region of the stage (also the container's AWS_REGION: SQS and the objectstore driver read it). */
export function region(env: DeployEnv = process.env): string {
  return env.SVC_AWS_REGION || env.AWS_REGION || 'us-east-1';
}

/** SVC_CONTAINER_DOMAIN: a domain for the container's load balancer, so CloudFront reaches it over HTTPS. */
export function containerDomain(env: DeployEnv = process.env): string | null {
  return env.SVC_CONTAINER_DOMAIN || null;
}

/** SVC_ROUTER_DOMAIN: the public domain of the CloudFront router (PUBLIC_URL then uses it). */
export function routerDomain(env: DeployEnv = process.env): string | null {
  return env.SVC_ROUTER_DOMAIN || null;
}

/** Tunables of core/config.ts passed through unchanged to both halves when the deploying shell sets them. */
export const PASS_THROUGH = [
  'LOG_LEVEL',
  'PROJECT_NAME',
  'ACCESS_TOKEN_TTL',
  'REFRESH_TOKEN_TTL',
  'MAX_PAYLOAD_SIZE',
  'QUERY_LIMIT_DEFAULT',
  'QUERY_LIMIT_MAX',
  'MAX_BATCH_MUTATION',
  'MAX_RELATIONAL_DEPTH',
  'EMAIL_FROM',
  'EMAIL_TRANSPORT',
  'EMAIL_SMTP_HOST',
  'EMAIL_SMTP_PORT',
  'EMAIL_SMTP_SECURE',
  'USER_INVITE_URL_ALLOW_LIST',
  'PASSWORD_RESET_URL_ALLOW_LIST',
  'USER_REGISTER_URL_ALLOW_LIST',
  'FILES_MAX_UPLOAD_SIZE',
  'FILES_MIME_TYPE_ALLOW_LIST',
  'ASSETS_CACHE_TTL',
  'ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION',
  'ASSETS_TRANSFORM_MAX_CONCURRENT',
  'TUS_UPLOAD_EXPIRATION',
  'TUS_CHUNK_SIZE',
  'RATE_LIMITER_ENABLED',
  'RATE_LIMITER_POINTS',
  'RATE_LIMITER_DURATION',
  'METRICS_ENABLED',
  'METRICS_NAME_PREFIX',
  'GRAPHQL_INTROSPECTION',
  'IMPORT_MAX_SIZE',
  'EXTENSIONS_MUST_LOAD',
  'NOTIFY_MAX_ATTEMPTS',
  'WEBSOCKETS_ENABLED',
  'WEBSOCKETS_REST_AUTH',
  'WEBSOCKETS_AUTH_TIMEOUT',
  'WEBSOCKETS_HEARTBEAT_PERIOD',
  'WEBSOCKETS_MAX_SUBSCRIPTIONS',
  'WEBSOCKETS_MAX_MESSAGE_SIZE',
  'WEBSOCKETS_MAX_BUFFER',
  'REALTIME_RETENTION',
  'REALTIME_RETENTION_EVENTS',
  'MCP_ENABLED',
  'MCP_MAX_ROWS',
  'MCP_MAX_RESULT_SIZE',
] as const;

export function passThrough(env: DeployEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASS_THROUGH) {
    const value = env[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}
