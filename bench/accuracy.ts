// The suite's published accuracy study (issue 41, docs/design/accuracy-study.md): the suite's client (stock k6 running
// the suite's own bundles, the measuring agent beside it) and the peers a user would pick instead (vLLM's
// `vllm bench serve`, AIPerf, GuideLLM), each judged request by request against the simulator's ground truth.
// Runs in Node.
//
// The simulator (fixed timing: TTFT --ttft-ms, one token per chunk every 1000 / tok/s ms; --ground-truth: when it
// read each request's headers and wrote each token) runs pinned to core 0; each client runs alone on core 1, its
// processes' CPU and peak RSS sampled from /proc. Closed loop: N streams, each sending its requests back to back
// (whole rounds, at least --min-requests requests); open loop: Poisson arrivals at each rate for --open-seconds.
// Every client's per-request figures are paired with the ground-truth record of the same request and judged by one
// module (bench/accuracy-judge.ts): per figure, the median and p99 of the differences client - truth.
// Usage: npm run bench:accuracy [-- --closed 1x100,256x100,1024x30 --open 5,20,50,100
//        --clients suite,vllm,aiperf,guidellm --tokens 300 --open-tokens 64 --open-seconds 30 --min-requests 16
//        --ttft-ms 50 --context 1024 --quick --json FILE --no-build]

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { EXIT, UserError } from '../lib/exit-codes';
import { startSimChild } from '../sim/child';
import { parseArgs, roundsOf, type Args, type ClientName, type ClosedLevel } from './accuracy-args';
import { preparePeers, runPeer, type Peers } from './accuracy-peers';
import { CLIENT_CORE, SIM_CORE, SIM_PREFIX } from './accuracy-run';
import { suiteClosed, suiteOpen, type SuiteContext } from './accuracy-suite-run';
import { renderStudy, type Row } from './accuracy-table';
import { prepareClient } from './client-engine';
import { NICE } from './proc-sample';

const NAME = 'accuracy';
/** The simulator's speed for the open-loop rates, tokens/s per stream. */
const OPEN_TOKENS_PER_SECOND = 100;
const log = (line: string): void => void process.stderr.write(`${NAME}: ${line}\n`);

const closedLabel = (l: ClosedLevel): string => `${l.streams} x ${l.tokensPerSecond} tok/s`;

/** Everything one simulator (one speed) serves: its closed-loop levels, and the open-loop rates at the open speed. */
async function atSpeed(
  args: Args, speed: number, suite: Omit<SuiteContext, 'base'>, peers: Peers, rows: Row[],
): Promise<void> {
  const sim = await startSimChild(
    ['--fixed-ttft-ms', String(args.ttftMs), '--fixed-itl-ms', String(1000 / speed), '--ground-truth'], SIM_PREFIX,
  );
  const ctx = { ...suite, base: sim.base };
  const run = async (client: ClientName, what: string, suiteRun: () => Promise<Row>, peer: () => Promise<Row>) => {
    log(`${what}: ${client}...`);
    rows.push(client === 'suite' ? await suiteRun() : await peer());
  };
  try {
    for (const level of args.closed.filter((l) => l.tokensPerSecond === speed)) {
      const rounds = roundsOf(level.streams, args.minRequests);
      const label = closedLabel(level);
      for (const client of args.clients)
        await run(client, label, () => suiteClosed(ctx, level, label, rounds, args.tokens, args.ttftMs),
          () => runPeer(peers, client, {
            base: sim.base, loop: 'closed', label, level, rounds, tokens: args.tokens, context: args.context,
            ttftMs: args.ttftMs,
          }));
    }
    if (speed !== OPEN_TOKENS_PER_SECOND) return;
    for (const rate of args.open) {
      for (const client of args.clients)
        await run(client, `${rate} req/s`, () => suiteOpen(ctx, rate, args.openSeconds, args.openTokens),
          () => runPeer(peers, client, { base: sim.base, loop: 'open', label: `${rate} req/s`, rate,
            seconds: args.openSeconds, tokens: args.openTokens, context: args.context, ttftMs: args.ttftMs }));
    }
  } finally {
    await sim.stop();
  }
}

function conditions(args: Args, k6Version: string, peers: Peers, loadStart: readonly number[]): string {
  const la = (v: readonly number[]): string => v.map((x) => x.toFixed(1)).join(' / ');
  return [
    `${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); the simulator on ` +
    `core ${SIM_CORE}, each client alone on core ${CLIENT_CORE}${NICE.length ? ', all at nice -10' : ''}; load ` +
    `average ${la(loadStart)} at the start, ${la(loadavg())} at the end.`,
    `Simulator: fixed timing, TTFT ${args.ttftMs} ms, one token per chunk; ${args.context}-token chat prompts; ` +
    `closed loop ${args.tokens} tokens per request, at least ${args.minRequests} requests per level in whole rounds ` +
    `(a round's streams start at once); open loop ${args.openTokens} tokens at ${OPEN_TOKENS_PER_SECOND} tok/s, ` +
    `Poisson, ${args.openSeconds} s per rate.`,
    `Clients: ${k6Version}, stock, with the measuring agent (dist/sweep.js, dist/rate.js)` +
    `${peers.versions.length > 0 ? `; ${peers.versions.join('; ')}` : ''}.`,
  ].join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (spawnSync('taskset', ['-c', CLIENT_CORE, 'true']).status !== 0)
    throw new UserError(`taskset and a core ${CLIENT_CORE} are needed: the simulator and the clients run apart`);
  const engine = await prepareClient(NAME, args.build);
  const peers = preparePeers(args.clients, log);
  const loadStart = loadavg();
  const rows: Row[] = [];
  const suite = { k6: engine.command[0]!, context: args.context };
  const speeds = [...new Set([
    ...args.closed.map((l) => l.tokensPerSecond), ...(args.open.length > 0 ? [OPEN_TOKENS_PER_SECOND] : []),
  ])];
  for (const speed of speeds) await atSpeed(args, speed, suite, peers, rows);
  const text = `${conditions(args, engine.version, peers, loadStart)}\n\n${renderStudy(rows)}\n`;
  process.stdout.write(text);
  if (args.json !== null) writeFileSync(args.json, `${JSON.stringify({ args, rows }, null, 1)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    process.stderr.write(`${NAME}: ${(e as Error).message.split('\n')[0]}\n`);
    process.exit(e instanceof UserError ? e.exitCode : EXIT.internal);
  });
}
