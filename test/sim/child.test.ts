// The simulator as its own process (sim/child.ts). Runs in Node (vitest).
// It serves, stops on stop(), and does not outlive a caller that dies without stopping it.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startSimChild } from '../../sim/child';
import { ROOT } from '../e2e/helpers';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe('startSimChild', () => {
  it('serves on a loopback port from its own process, and stop() ends that process', async () => {
    const sim = await startSimChild(['--fixed-ttft-ms', '5', '--fixed-itl-ms', '1']);
    expect(sim.child.pid).not.toBe(process.pid);
    const res = await fetch(`${sim.base}/health`);
    expect(res.status).toBe(200);
    await sim.stop();
    expect(alive(sim.child.pid!)).toBe(false);
  }, 30_000);

  it('exits when the process that started it is killed with SIGKILL (no orphan serving forever)', async () => {
    // A caller that starts the simulator, prints its pid, and is then killed without a chance to stop it.
    const caller = spawn(
      process.execPath,
      [
        '--import', 'tsx', '-e',
        "import('./sim/child.ts').then(async (m) => { const s = await m.startSimChild(['--fixed-ttft-ms', '5', " +
        "'--fixed-itl-ms', '1']); console.log('pid', s.child.pid); setInterval(() => {}, 1000); })",
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      caller.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /pid (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      caller.once('exit', (code) => reject(new Error(`the caller exited with ${code} before starting the simulator`)));
    });
    expect(alive(pid)).toBe(true);
    caller.kill('SIGKILL');
    expect(await waitUntil(() => !alive(pid), 10_000)).toBe(true);
  }, 30_000);
});
