/** The listening server's socket timeouts and its graceful drain (SHUTDOWN_TIMEOUT).
 *
 * Drain: the listening socket closes at once (new connections are refused, so a load balancer moves on), idle
 * keep-alive connections close, every request already in flight runs to its end and its response carries
 * `Connection: close`; a request that arrives during the drain on a connection opened before gets a complete
 * 503 SERVICE_UNAVAILABLE with `Connection: close`. When the last response has ended, or at the deadline, the
 * remaining connections are closed and the caller's cleanup (pool, Redis, queue) runs. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpServerConfig } from '../core/config.ts';

/** Options for node:http's createServer: Node checks headersTimeout and requestTimeout every
 * connectionsCheckingInterval, so that interval follows the smaller of them. */
export function httpServerOptions(config: HttpServerConfig): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const requestTimeout = config.requestTimeoutMs;
  const headersTimeout = Math.min(config.headersTimeoutMs, requestTimeout);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(headersTimeout / 4))) };
}

/** The answer to a request that arrives during the drain on a connection opened before it. */
export function shuttingDownResponse(): Response {
  const body = JSON.stringify({ errors: [{ message: 'Server is shutting down, try again.', extensions: { code: 'SERVICE_UNAVAILABLE' } }] });
  return new Response(body, { status: 503, headers: { 'content-type': 'application/json; charset=UTF-8', 'retry-after': '1', connection: 'close' } });
}

type Fetch<A extends unknown[]> = (request: Request, ...rest: A) => Response | Promise<Response>;

export class HttpDrain {
  #draining = false;
  #server: Server | null = null;
  readonly #inFlight = new Set<ServerResponse>();
  #idle: (() => void) | null = null;

  constructor(private readonly config: HttpServerConfig) {}

  get draining(): boolean {
    return this.#draining;
  }

  /** The app's fetch, answering 503 during the drain. */
  guard<A extends unknown[]>(fetch: Fetch<A>): Fetch<A> {
    return (request, ...rest) => (this.#draining ? shuttingDownResponse() : fetch(request, ...rest));
  }

  /** Applies the socket timeouts to `server` and tracks its responses. */
  attach(server: Server): void {
    this.#server = server;
    const { keepAliveTimeoutMs, socketTimeoutMs } = this.config;
    server.keepAliveTimeout = keepAliveTimeoutMs;
    // A socket without traffic for HTTP_SOCKET_TIMEOUT is closed, unless its request is still being worked on
    // (no answer started yet: a slow export or import is not a slow client); then it is looked at again later.
    const answering = new WeakMap<Socket, ServerResponse>();
    if (socketTimeoutMs > 0) {
      server.setTimeout(socketTimeoutMs, (socket: Socket) => {
        const res = answering.get(socket);
        if (res && !res.headersSent && !res.writableEnded) socket.setTimeout(socketTimeoutMs);
        else socket.destroy();
      });
    }
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.#draining) res.setHeader('connection', 'close');
      answering.set(req.socket, res);
      this.#inFlight.add(res);
      res.once('close', () => {
        this.#inFlight.delete(res);
        if (this.#draining && this.#inFlight.size === 0) this.#idle?.();
      });
    });
  }

  /** Stops accepting, lets in-flight requests finish (at most `timeoutMs`), then closes every connection left.
   * Resolves with the number of requests cut at the deadline (0 for a clean drain). */
  async drain(timeoutMs: number): Promise<number> {
    const server = this.#server;
    this.#draining = true;
    if (!server) return 0;
    for (const res of this.#inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (this.#inFlight.size > 0) {
      await new Promise<void>((resolve) => {
        this.#idle = resolve;
        setTimeout(resolve, timeoutMs).unref();
      });
    }
    const cut = this.#inFlight.size;
    server.closeAllConnections();
    await closed;
    return cut;
  }
}
