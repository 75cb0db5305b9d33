/** /websocket on the Node HTTP server (container half and standalone): the upgrade and its credential. The
 * connections then belong to the process's realtime side (./instance.ts). */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { errorBody } from '../../core/realtime/hub.ts';
import type { Services } from '../../core/services.ts';
import { accountabilityOf, describe, metaOf, requestToken } from './credential.ts';
import { realtime } from './instance.ts';
import { SocketConnection } from './websocket.ts';

export interface RealtimeServer {
  /** Refuses new sockets, closes the open ones (1001: reconnect elsewhere). */
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: number, message: string, code: string): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Service Unavailable'}\r\n`
    + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export function attachRealtime(server: Server, services: Services): RealtimeServer {
  const config = services.config.realtime;
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxMessageBytes, perMessageDeflate: false });
  let closing = false;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/websocket' && path !== '/websocket/') { refuse(socket, 404, 'Route not found.', 'ROUTE_NOT_FOUND'); return; }
    if (!config.enabled || closing) { refuse(socket, 503, 'WebSockets are not available.', 'SERVICE_UNAVAILABLE'); return; }
    socket.on('error', () => socket.destroy());
    void (async () => {
      // Created before the credential is checked, so the access watch's baseline predates that check.
      const rt = realtime(services);
      const meta = metaOf(services, req);
      const token = requestToken(req);
      let initial: Awaited<ReturnType<typeof accountabilityOf>> | null = null;
      // A credential on the upgrade (Bearer, ?access_token, the session cookie) authenticates at once, in any mode;
      // strict mode requires one.
      if (token || config.authMode === 'public') {
        try {
          initial = await accountabilityOf(services, token, meta);
        } catch (err) {
          refuse(socket, 401, errorBody(err).message, 'INVALID_CREDENTIALS');
          return;
        }
      } else if (config.authMode === 'strict') {
        refuse(socket, 401, 'An access token is required.', 'INVALID_CREDENTIALS');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        const conn: SocketConnection = new SocketConnection(ws, services, rt.hub, meta,
          initial ? { accountability: initial, held: token ? describe(token) : null } : null,
          () => rt.connections.delete(conn));
        rt.connections.add(conn);
      });
    })().catch((err: unknown) => {
      console.error('realtime: upgrade failed:', err);
      socket.destroy();
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    async close() {
      closing = true;
      server.off('upgrade', onUpgrade);
      realtime(services).close();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
