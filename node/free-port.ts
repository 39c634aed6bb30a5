// Finds a free loopback TCP port for a server that cannot listen on port 0 itself (llama-server, Prometheus).
// Runs in Node.
//
// The port is free when this returns; another process could take it before the caller's server
// binds, which on a test machine is rare enough to accept.

import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
