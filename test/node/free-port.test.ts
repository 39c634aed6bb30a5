import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../node/free-port';

describe('freePort', () => {
  it("gives a port that can be listened on, below the ephemeral range outgoing connections draw from", async () => {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const port = await freePort();
    expect(port).toBeLessThan(start);
    expect(port).toBeGreaterThanOrEqual(1024);
    const s = createServer();
    await new Promise<void>((resolve, reject) => s.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise((r) => s.close(r));
  });
});
