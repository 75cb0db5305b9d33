/** Records the HTTP metrics of SPEC.md > Server, metrics for every request (installed only when
 * METRICS_ENABLED). Kept cheap: one clock read at each end, one Map lookup (core/metrics/series.ts), no body is
 * ever read (sizes come from content-length and are recorded only when present and above zero).
 *
 * Under @hono/node-server (`c.env.outgoing`) the request is recorded when the Node response closes: the duration
 * covers writing the body, the active gauge drops when the client has it, and the response size is the
 * Content-Length that went on the wire (node-server computes it for string and buffer bodies after the handler
 * returns, so the Hono Response has none). Elsewhere (app.request, Lambda) it is recorded when the handler
 * chain returns, with the content-length of the Hono Response.
 *
 * `route` is the pattern of the route that answered (e.g. /items/:collection/:pk); when a middleware answered
 * first (401, 403, 429, 503), the pattern of the route that would have handled the request; the path without
 * query string only when no route matches at all (404 for unknown paths). */
import type { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { HttpMetrics } from '../../core/metrics/http-metrics.ts';
import type { AppEnv } from './env.ts';

/** Routes registered with app.use carry this method; they are middleware, not route patterns. */
const MIDDLEWARE_METHOD = 'ALL';

export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  const index = c.req.routeIndex;
  const current = routes[index];
  if (current && current.method !== MIDDLEWARE_METHOD) return current.path;
  for (let i = index + 1; i < routes.length; i++) if (routes[i].method !== MIDDLEWARE_METHOD) return routes[i].path;
  return c.req.path;
}

function size(value: string | number | readonly string[] | undefined | null): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return 0;
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

/** The Node response of @hono/node-server, when that is the adapter. */
function nodeResponse(c: Context): ServerResponse | null {
  const env = c.env as { outgoing?: unknown } | undefined;
  const outgoing = env?.outgoing as ServerResponse | undefined;
  return outgoing && typeof outgoing.once === 'function' && typeof outgoing.getHeader === 'function' ? outgoing : null;
}

/** The Content-Length of a Node response: the header when set, else the length node-server handed to Node
 * (`_contentLength`, which Node writes as the header; node-server sets it itself for plain-header responses). */
function nodeResponseSize(outgoing: ServerResponse): number {
  const header = size(outgoing.getHeader('content-length'));
  if (header > 0) return header;
  const internal = (outgoing as unknown as { _contentLength?: unknown })._contentLength;
  return typeof internal === 'number' ? internal : 0;
}

export function metricsMiddleware(metrics: HttpMetrics): MiddlewareHandler<AppEnv> {
  function record(method: string, route: string, status: number, started: number, requestSize: number, responseSize: number) {
    metrics.record(method, route, status, (performance.now() - started) / 1000, requestSize, responseSize);
  }

  return async (c, next) => {
    const started = performance.now();
    metrics.active.inc();
    let deferred = false;
    try {
      await next();
      const method = c.req.method;
      const route = routeLabel(c);
      const requestSize = size(c.req.header('content-length'));
      const status = c.res.status;
      const outgoing = nodeResponse(c);
      if (outgoing && !outgoing.writableFinished) {
        deferred = true;
        outgoing.once('close', () => {
          metrics.active.dec();
          record(method, route, status, started, requestSize, nodeResponseSize(outgoing));
        });
      } else {
        record(method, route, status, started, requestSize, size(c.res.headers.get('content-length')));
      }
    } catch (err) {
      // Not turned into a response by the error handler: Hono answers 500.
      record(c.req.method, routeLabel(c), 500, started, size(c.req.header('content-length')), 0);
      throw err;
    } finally {
      if (!deferred) metrics.active.dec();
    }
  };
}
