/** AWS Lambda entry (API Gateway HTTP API, payload v2). Services are created once per warm container. */
import { handle, type LambdaContext, type LambdaEvent } from 'hono/aws-lambda';
import { loadConfig } from '../core/config.ts';
import { createServices, type Services } from '../core/services.ts';
import { createFunctionsApp } from './app.ts';
import { loadExtensions, type ExtensionHost } from '../core/extensions/host.ts';

let handler: ReturnType<typeof handle> | null = null;
let starting: Promise<ReturnType<typeof handle>> | null = null;

/** Builds the handler for given services (tests pass their own). Each invocation returns only once its action
 * events and worker wake-ups are in the queue: Lambda freezes the instance after the response, which would strand
 * them. */
export function createLambdaHandler(services: Services, extensions?: ExtensionHost): ReturnType<typeof handle> {
  const inner = handle(createFunctionsApp(services, extensions));
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
  const config = loadConfig();
  // Every instance must verify every other instance's tokens: a per-container random secret would not.
  if (config.secretGenerated) throw new Error('SECRET must be set for the Lambda functions.');
  // Migrations run at deploy time (sst), not on every cold start.
  const services = await createServices(config, { skipMigrations: process.env.SVC_RUN_MIGRATIONS !== 'true' });
  // The same extensions as the container: filter hooks and endpoints run here; action hooks and schedules only
  // where the queue is consumed.
  return createLambdaHandler(services, await loadExtensions(services));
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
