// Finds a free loopback TCP port for a server that cannot listen on port 0 itself (llama-server, Prometheus, k6's
// --address). Runs in Node.
//
// The port is free when this returns, and the caller's server binds it a moment later. Port 0 would hand out one of
// the kernel's ephemeral ports, the range every outgoing connection draws its own port from: with many clients
// connecting on the machine (a test run's k6 processes, agents and benches), one could take the port in that moment
// (a split run's k6 runner then exited before the start, CI 2026-12-07). So the port is drawn from just below that
// range, where only a server binding it on purpose could take it.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** How many ports below the ephemeral range the draw covers. */
const SPAN = 12_000;

/** The first ephemeral port (Linux's ip_local_port_range), or null where it cannot be read. */
function ephemeralStart(): number | null {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 2048 ? start : null;
  } catch {
    return null;
  }
}

/** Listens on `port` (0: the kernel's choice) and closes; resolves to the port, or null when it is taken. */
function tryListen(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => {
      const bound = (s.address() as { port: number }).port;
      s.close(() => resolve(bound));
    });
  });
}

/** A TCP port on 127.0.0.1 that nothing listens on now, below the ephemeral range where it can be. */
export async function freePort(): Promise<number> {
  const start = ephemeralStart();
  if (start !== null) {
    const low = Math.max(1024, start - SPAN);
    for (let i = 0; i < 50; i++) {
      const port = await tryListen(low + Math.floor(Math.random() * (start - low)));
      if (port !== null) return port;
    }
  }
  const port = await tryListen(0);
  if (port === null) throw new Error('no free loopback port');
  return port;
}
