// The one launcher of the real servers (orchestrator/server-launcher.ts) with a real process: a small Node HTTP
// server that is slow to become healthy, one that exits, one that never answers. Runs in Node (vitest).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupMembers } from '../../orchestrator/process-group';
import { launchServer } from '../../orchestrator/server-launcher';

/** A server on the port it is given: /health 503 for `readyAfterMs`, then 200; it logs a line when it listens. */
const SERVER = `
const port = Number(process.argv[1]); const readyAt = Date.now() + Number(process.argv[2]);
if (process.argv[3]) require('fs').writeFileSync(process.argv[3], String(process.pid));
require('http').createServer((req, res) => {
  res.statusCode = req.url === '/health' && Date.now() >= readyAt ? 200 : 503; res.end();
}).listen(port, '127.0.0.1', () => console.log('listening on ' + port));
process.on('SIGTERM', () => { console.log('bye'); process.exit(0); });
`;

describe('launchServer', () => {
  it('starts, waits for /health, keeps the log, and stops the whole group', async () => {
    const started = Date.now();
    const s = await launchServer({
      name: 'toy', command: process.execPath, args: (port) => ['-e', SERVER, String(port), '700'],
      readyWithinMs: 20_000, pollMs: 50,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(650);
    expect((await fetch(`${s.base}/health`)).status).toBe(200);
    expect(s.logTail()).toMatch(/listening on \d+/);
    expect(groupMembers(s.group.pgid).length).toBeGreaterThan(0);
    await s.stop();
    expect(groupMembers(s.group.pgid)).toEqual([]);
    expect(s.logTail()).toContain('bye');
  });

  it('says in one line that the server exited before it was ready, with its last words', async () => {
    const p = launchServer({
      name: 'toy', command: process.execPath, args: () => ['-e', 'console.error("no model here"); process.exit(3)'],
      readyWithinMs: 20_000, pollMs: 50,
    });
    await expect(p).rejects.toThrow(/^toy exited before it was ready: no model here$/);
  });

  it('gives up past its deadline and leaves nothing running', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'launcher-')), 'pid');
    const p = launchServer({
      name: 'toy', command: process.execPath, args: (port) => ['-e', SERVER, String(port), '600000', pidFile],
      readyWithinMs: 1500, pollMs: 50,
    });
    await expect(p).rejects.toThrow(/^toy did not become ready within 1.5 s: /);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0), 'the server was killed').toThrow();
  });
});
