/** A TCP port nothing listens on right now, chosen by the OS (a random pick in a range can land on a port another
 * service of the machine holds, e.g. RabbitMQ's 25672). */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
