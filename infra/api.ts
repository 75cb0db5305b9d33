/** The stateless half: functions/lambda.handler behind an API Gateway HTTP API (payload v2). */
import type { Data } from './data.ts';

export function createApi(data: Data, environment: Record<string, $util.Input<string>>) {
  const handler = new sst.aws.Function('Functions', {
    handler: 'functions/lambda.handler',
    runtime: 'nodejs20.x',
    architecture: 'arm64',
    memory: '1024 MB',
    // API Gateway answers 503 after 30 s anyway.
    timeout: '30 seconds',
    vpc: data.vpc,
    link: [data.database, data.redis, data.queue, data.bucket],
    // Migrations run in the container at start; cold starts skip them (functions/lambda.ts).
    environment: { ...environment, SVC_MODE: 'functions' },
    nodejs: {
      format: 'esm',
      // Native addons: installed for the Lambda platform instead of bundled.
      install: ['@node-rs/argon2'],
    },
  });

  const api = new sst.aws.ApiGatewayV2('Api', { vpc: data.vpc });
  // Every path: the Hono app routes inside the function.
  api.route('$default', handler.arn);
  return { handler, api };
}
