/** AWS Lambda entry (API Gateway HTTP API, payload v2). Services are created once per warm container.
 *
 * Bundled by scripts/build-lambda.ts (`npm run build:lambda`). Importing this module does no work beyond defining the
 * handler: configuration, the pg pool, the shared store, the queue and the extensions are set up on the first event
 * (`init`) and kept for every later invocation of the same instance. The schema overview is loaded on the first
 * request that needs it and revalidated through the shared store's version key (core/schema/cache.ts). */
import { handle, type LambdaContext, type LambdaEvent } from 'hono/aws-lambda';
import { loadConfig } from '../core/config.ts';
import { createServices, type Services } from '../core/services.ts';
import { createFunctionsApp } from './app.ts';
import { loadExtensions, type ExtensionHost } from '../core/extensions/host.ts';

let handler: ReturnType<typeof handle> | null = null;
let starting: Promise<ReturnType<typeof handle>> | null = null;
let instanceServices: Services | null = null;

/** Defaults that differ from the container: a Lambda instance serves one event at a time, so
 * - DB_POOL_MAX defaults to 2 (one connection for the request, one for an after-commit or event write; many
 *   instances share the database through RDS Proxy, infra/data.ts);
 * - PRESSURE_LIMITER_ENABLED defaults to false: the limiter protects a process shared by concurrent requests, and
 *   the event-loop delay of the cold start itself would shed the first requests of a fresh instance with 503.
 * Either can still be set explicitly. */
export function lambdaEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...env,
    DB_POOL_MAX: env.DB_POOL_MAX ?? '2',
    PRESSURE_LIMITER_ENABLED: env.PRESSURE_LIMITER_ENABLED ?? env.PRESSURE_ENABLED ?? 'false',
  };
}

/** The services of this instance once the first event has created them (null before): every later invocation
 * reuses them, with their pool and schema cache. */
export function currentServices(): Services | null {
  return instanceServices;
}

/** Builds the handler for given services (tests pass their own). Each invocation returns only once its action
 * events are recorded (and, with services that send them after commit, sent) and its worker wake-ups are in the
 * queue: Lambda freezes the instance after the response, which would strand them. */
export function createLambdaHandler(services: Services, extensions?: ExtensionHost): ReturnType<typeof handle> {
  // Route groups are imported by the first request that reaches them, not all at the first event.
  const inner = handle(createFunctionsApp(services, extensions, { preloadRoutes: false }));
  return async <L extends LambdaEvent>(event: L, lambdaContext?: LambdaContext) => {
    try {
      return await inner(event, lambdaContext);
    } finally {
      await services.events.drain();
      await services.queue.drain();
    }
  };
}

async function init(): Promise<ReturnType<typeof handle>> {
  const config = loadConfig(lambdaEnv());
  // Every instance must verify every other instance's tokens: a per-container random secret would not.
  if (config.secretGenerated) throw new Error('SECRET must be set for the Lambda functions.');
  // Migrations run at deploy time (sst), not on every cold start.
  // Action events are committed with their change; the container's relay sends them, so an invocation never waits
  // for SQS to take them (core/events/bus.ts).
  const services = await createServices(config, { skipMigrations: process.env.SVC_RUN_MIGRATIONS !== 'true', sendEventsAfterCommit: false });
  // The same extensions as the container: filter hooks and endpoints run here; action hooks and schedules only
  // where the queue is consumed.
  let extensions: ExtensionHost;
  try {
    extensions = await loadExtensions(services);
  } catch (err) {
    // The next invocation retries from scratch: do not leave this attempt's pool and store connections open.
    await services.close().catch(() => {});
    throw err;
  }
  instanceServices = services;
  return createLambdaHandler(services, extensions);
}

export async function lambdaHandler(event: LambdaEvent, context: LambdaContext) {
  if (!handler) {
    starting ??= init().catch((err) => {
      starting = null; // let the next invocation retry instead of failing forever
      throw err;
    });
    handler = await starting;
  }
  return handler(event, context);
}

export { lambdaHandler as handler };
