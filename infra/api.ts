/** The stateless half: functions/lambda.handler on Lambda behind an API Gateway HTTP API (payload v2). */
import { existsSync } from 'node:fs';
import { links, type Data } from './data.ts';
import type { Environment } from './env.ts';

/** Native addons: installed for the Lambda platform (linux arm64) next to the bundle, not bundled. */
export const LAMBDA_INSTALL = ['sharp', '@node-rs/argon2'];
/** Never loaded in the Lambda (it always has DATABASE_URL; pg's native binding is optional): left out. */
export const LAMBDA_EXTERNAL = ['@electric-sql/pglite', 'pg-native'];

export function createApi(data: Data, environment: Environment, root = process.cwd()) {
  const handler = new sst.aws.Function('Functions', {
    handler: 'functions/lambda.handler',
    runtime: 'nodejs20.x',
    architecture: 'arm64',
    memory: '1024 MB',
    // API Gateway answers 503 after 30 s anyway; long requests (imports, exports, uploads) go to the container.
    timeout: '30 seconds',
    vpc: data.vpc,
    link: links(data),
    environment,
    nodejs: {
      format: 'esm',
      install: LAMBDA_INSTALL,
      esbuild: { external: LAMBDA_EXTERNAL },
      sourcemap: true,
    },
    // The same extensions as the container (filter hooks and endpoints run in the functions too).
    ...(existsSync(`${root}/extensions`) ? { copyFiles: [{ from: 'extensions', to: 'extensions' }] } : {}),
  });

  const api = new sst.aws.ApiGatewayV2('Api');
  // Every path and method: the Hono app routes inside the function.
  api.route('$default', handler.arn);
  return { handler, api };
}
