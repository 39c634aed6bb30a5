// Where a burst's TTFT goes (issue 41: at 256 streams starting together the client read TTFT 118 ms above the
// simulator's). Runs in Node. The simulator (fixed timing, --ground-truth) is pinned to core 0, k6 and the measuring
// agent to core 1, as in bench/engine-overhead.ts. At each level N, bench/k6/burst-phases.js starts N users that each
// place their run clock on the wall clock and then send one request at the same instant; every request's times are set
// beside the simulator's record of it (x-request-id), phase by phase on one wall clock (bench/ttft-burst-phases.ts):
// k6's dispatch, the hand-off to the agent, connect and write, the simulator's accept queue, the server's TTFT, the
// first token's delivery. Prints p50 / p99 of each.
// Usage: npm run bench:ttft-burst [-- --levels 1,32,256 --tokens 64 --ttft-ms 50 --speed 100 --no-build]
import { spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { startAgent } from '../orchestrator/agent-process';
import { clearGroundTruth, fetchGroundTruth, startSimChild } from '../sim/child';
import type { GroundTruthRecord } from '../sim/ground-truth';
import { prepareClient } from './client-engine';
import { PHASE_NAMES, phasesOf, readClientLines, type Phases } from './ttft-burst-phases';
import { quantile } from './engine-overhead';

const REPO = resolve(import.meta.dirname, '..');
const SCRIPT = join(REPO, 'bench/k6/burst-phases.js');
/** Run-clock time of the burst: long enough for every VU to start and calibrate its clock (<= 3 ms each) first. */
const burstAtMs = (users: number): number => 3000 + 10 * users;

interface Args {
  levels: number[];
  tokens: number;
  ttftMs: number;
  speed: number;
  build: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { levels: [1, 32, 256], tokens: 64, ttftMs: 50, speed: 100, build: true };
  const usage = '(use --levels 1,32,256 --tokens 64 --ttft-ms 50 --speed 100 --no-build)';
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--levels') a.levels = (argv[++i] ?? '').split(',').map(Number);
    else if (k === '--tokens') a.tokens = Number(argv[++i]);
    else if (k === '--ttft-ms') a.ttftMs = Number(argv[++i]);
    else if (k === '--speed') a.speed = Number(argv[++i]);
    else if (k === '--no-build') a.build = false;
    else throw new Error(`unknown argument ${k} ${usage}`);
  }
  if (a.levels.length === 0 || a.levels.some((n) => !Number.isInteger(n) || n < 1 || n > 4096))
    throw new Error(`--levels: integers from 1 to 4096, comma-separated ${usage}`);
  if (!Number.isInteger(a.tokens) || a.tokens < 2) throw new Error('--tokens: an integer >= 2');
  if (!(a.ttftMs >= 1) || !(a.speed >= 1 && a.speed <= 1000)) throw new Error(`--ttft-ms, --speed ${usage}`);
  return a;
}

/** One level: k6 with its logged lines, or why it failed. */
function runBurst(k6: string, base: string, agentUrl: string, users: number, tokens: number): Promise<string> {
  const env = {
    BASE_URL: base, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', LLM_AGENT: agentUrl, USERS: String(users),
    TOKENS: String(tokens), BURST_AT_MS: String(burstAtMs(users)),
  };
  const args = ['run', '--quiet', '--no-usage-report', '--no-summary', '--log-format', 'raw',
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), SCRIPT];
  return new Promise((res, rej) => {
    const child = spawn('taskset', ['-c', '1', k6, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => (code === 0 ? res(out) : rej(new Error(`k6 exited ${code}: ${out.slice(-400)}`))));
  });
}

function row(n: number, phases: readonly Phases[]): string {
  const cell = (k: keyof Phases): string =>
    `${quantile(phases.map((p) => p[k]), 0.5).toFixed(1)} / ${quantile(phases.map((p) => p[k]), 0.99).toFixed(1)}`;
  const columns = [...PHASE_NAMES, 'fromBurst' as const, 'clientTtft' as const];
  return `| ${n} | ${phases.length} | ${columns.map((k) => cell(k)).join(' | ')} |`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0) throw new Error('taskset is needed to pin the cores');
  const engine = await prepareClient('ttft-burst', args.build);
  const timing = ['--fixed-ttft-ms', String(args.ttftMs), '--fixed-itl-ms', String(1000 / args.speed)];
  const sim = await startSimChild([...timing, '--ground-truth'], ['taskset', '-c', '0']);
  const agent = await startAgent({ prefix: ['taskset', '-c', '1'] });
  const lines = [
    `ttft-burst: ${cpus()[0]?.model ?? '?'} x${cpus().length}, load average ${loadavg()[0]!.toFixed(2)} ` +
      'at the start; ' +
      `k6 ${engine.version}; fixed TTFT ${args.ttftMs} ms, ${args.speed} tok/s, ${args.tokens} tokens`,
    '',
    '| users | matched | dispatch | hand-off | connect + write | sim accept queue | server TTFT | delivery | ' +
      'burst to first token | client TTFT |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  try {
    // A first burst, not reported: the simulator's and the agent's first requests pay their warm-up.
    await runBurst(engine.command[0]!, `${sim.base}/v1`, agent.url, 4, args.tokens);
    for (const n of args.levels) {
      process.stderr.write(`ttft-burst: ${n} users at once...\n`);
      await clearGroundTruth(sim.base);
      const out = await runBurst(engine.command[0]!, `${sim.base}/v1`, agent.url, n, args.tokens);
      const truth = new Map<string, GroundTruthRecord>((await fetchGroundTruth(sim.base)).map((t) => [t.requestId, t]));
      const phases = readClientLines(out).map((c) => phasesOf(c, truth)).filter((p): p is Phases => p !== null);
      lines.push(row(n, phases));
    }
  } finally {
    await agent.stop();
    await sim.stop();
  }
  lines.push('', 'Each cell: p50 / p99 over the level\'s requests, ms. The phases add up to "burst to first token".');
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`ttft-burst: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
