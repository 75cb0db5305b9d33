/** Turns anything thrown by a handler into the `{errors:[...]}` envelope. */
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { normalizeErrors, RouteNotFoundError, ServiceError, toErrorResponse, ContentTooLargeError } from '../../core/errors.ts';
import type { Config } from '../../core/config.ts';
import type { AppEnv } from './env.ts';

export function errorResponse(c: Context, err: unknown, config: Config): Response {
  let input = err;
  if (err instanceof HTTPException && !(err instanceof ServiceError)) {
    input = err.status === 413 ? new ContentTooLargeError() : err;
  }
  const { errors, unexpected } = normalizeErrors(input);
  if (unexpected && config.logLevel !== 'silent') console.error(unexpected);
  const expose = config.logLevel === 'debug' || config.logLevel === 'trace';
  const { status, body } = toErrorResponse(errors, expose);
  if (unexpected && expose && unexpected instanceof Error) body.errors[0].extensions.reason = unexpected.message;
  return c.json(body, status as 400);
}

export function installErrorHandling(app: Hono<AppEnv>, config: Config): void {
  app.onError((err, c) => errorResponse(c, err, config));
  app.notFound((c) => errorResponse(c, new RouteNotFoundError(c.req.path), config));
}
