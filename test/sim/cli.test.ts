// The sim command line: --list-profiles, bad flags (exit 2, one line), start-up line with the URL, clean stop on
// SIGTERM.
// Runs in Node (vitest).
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROFILES } from '../../sim/profiles';
import { SYNC_CHILD_LIMIT } from '../sync-child';

const TSX = ['--import', 'tsx', 'scripts/sim.ts'];

describe('scripts/sim.ts: profiles, bad flags, start and stop', () => {
  it('--list-profiles prints every profile, A marked default', () => {
    const r = spawnSync(process.execPath, [...TSX, '--list-profiles'], { encoding: 'utf8', ...SYNC_CHILD_LIMIT });
    expect(r.status).toBe(0);
    for (const p of PROFILES) expect(r.stdout).toContain(p.name);
    expect(r.stdout).toMatch(/qwen3-coder-30b-a3b-h200-vllm \(default\)/);
  });

  it('rejects a bad flag with one line on stderr and exit code 2', () => {
    const badFlags = [
      ['--port', 'abc'], ['--bogus'], ['--profile', 'nope'], ['--fault', 'explode'], ['--fixed-ttft-ms', '5'],
      ['--noise', '--fixed-ttft-ms', '5', '--fixed-itl-ms', '1'],
      ['--noise-seed', '-1'], ['--noise-seed', '4294967296'],
    ];
    for (const args of badFlags) {
      const r = spawnSync(process.execPath, [...TSX, ...args], { encoding: 'utf8', ...SYNC_CHILD_LIMIT });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('prints the URL once listening, serves, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [...TSX, '--port', '0', '--fixed-ttft-ms', '5', '--fixed-itl-ms', '1', '--tokenizer-workers', '1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /http:\/\/127\.0\.0\.1:\d+\/v1/.exec(out);
        if (m) resolve(m[0]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
    });
    const models = (await (await fetch(`${url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data[0]!.id).toBe(PROFILES[0]!.model);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  });
});

describe('scripts/sim.ts flags: the prefix cache and noise', () => {
  it('--no-prefix-cache turns the prefix cache off (on by default)', async () => {
    const child = spawn(process.execPath, [...TSX, '--port', '0', '--no-prefix-cache', '--tokenizer-workers', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
    });
    expect(line).toContain('prefix cache off');
    const url = /http:\/\/127\.0\.0\.1:\d+/.exec(line)![0];
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/enable_prefix_caching="False"/);
    await new Promise<void>((resolve) => {
      child.on('exit', () => resolve());
      child.kill('SIGTERM');
    });
  });

  it('--noise turns step-time noise on with the defaults and prints its seed; none without it', async () => {
    const firstLine = (args: string[]): Promise<string> => {
      const child = spawn(process.execPath, [...TSX, '--port', '0', '--tokenizer-workers', '1', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) {
            child.kill('SIGTERM');
            resolve(out);
          }
        });
        child.on('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
      });
    };
    const [noisy, seeded, quiet] = await Promise.all([
      firstLine(['--noise']), firstLine(['--noise-seed', '99']), firstLine([]),
    ]);
    expect(noisy).toMatch(/noise on: jitter 3%, stall of 3 steps after 0\.5% of steps, seed \d+/);
    expect(seeded).toContain('seed 99,');
    expect(quiet).toContain('no noise');
  }, 60_000);
});
