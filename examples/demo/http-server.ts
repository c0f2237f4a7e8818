import { createServer } from 'node:net';
import type { Server } from 'node:http';

/**
 * The server timeouts the README recommends ("Server timeouts"): a client gets 20 s for the request line and
 * headers and 30 s for the whole request, instead of Node's 60 s and 300 s (slowloris). They bound receiving a
 * request only: long answers (the 2025-11-25 GET stream, a call waiting for a person) are not cut.
 */
export function limitSlowClients(server: Server): void {
  server.headersTimeout = 20_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
}

/** A free TCP port on `host` (when the port must be known before the app starts). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
