// Command-line entry of the simulated inference server: `npm run sim -- [--profile NAME] [--port N] [--host H] ...`.
// Runs in Node.

import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { parseFaultSpec } from '../sim/faults';
import { describeNoise } from '../sim/noise';
import { DEFAULT_PROFILE_NAME, renderProfileList, resolveProfile } from '../sim/profiles';
import { startSim } from '../sim/server';
import type { SimOptions } from '../sim/server-options';
import { EXIT } from '../lib/exit-codes';

/** Exit codes: 0 ok, 1 runtime failure, 2 bad usage (as commander and most CLIs). */

function intArg(name: string, min: number, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be an integer ${min}..${max}`);
    return n;
  };
}

function numArg(name: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new InvalidArgumentError(`${name} must be a number >= ${min}`);
    return n;
  };
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

interface CliFlags {
  profile: string;
  port: number;
  host: string;
  listProfiles?: boolean;
  apiKey?: string;
  maxQueue?: number;
  flavour?: 'vllm' | 'sglang';
  groundTruth?: boolean;
  fault: string[];
  faultProbability?: number;
  fixedTtftMs?: number;
  fixedItlMs?: number;
  streamInterval?: number;
  reasoningTokens?: number;
  tokenizerWorkers?: number;
  prefixCache: boolean;
  noise?: boolean;
  noiseSeed?: number;
  tlsCert?: string;
  tlsKey?: string;
}

/** The command line: every flag, with its help and its check. */
function buildProgram(): Command {
  return new Command()
    .name('sim')
    .description(
      'Simulated OpenAI-compatible inference server (vLLM/SGLang-like, continuous-batching performance model).',
    )
    .option(
      '--profile <name>', 'profile name or letter (see --list-profiles), or a path to a JSON profile',
      DEFAULT_PROFILE_NAME,
    )
    .option('--port <n>', 'port to listen on; 0 picks a free port', intArg('--port', 0, 65535), 8000)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--list-profiles', 'print the built-in profiles and exit')
    .option('--api-key <key>', 'require Authorization: Bearer <key> on /v1/*')
    .option(
      '--max-queue <n>', 'refuse requests with 429 when this many are waiting', intArg('--max-queue', 0, 1_000_000),
    )
    .addOption(
      new Option('--flavour <flavour>', "response and metric style (default: the profile's)")
        .choices(['vllm', 'sglang']),
    )
    .option('--ground-truth', 'record per-token emission times, served at GET /debug/ground-truth')
    .option('--fault <spec>', 'server-wide fault, e.g. "reset-mid-stream;after=5;p=0.1" (repeatable)', collect, [])
    .option(
      '--fault-probability <p>', 'probability for --fault specs that do not give p=', numArg('--fault-probability', 0),
    )
    .option('--fixed-ttft-ms <ms>', 'fixed timing: TTFT in ms (no batching physics)', numArg('--fixed-ttft-ms', 0))
    .option('--fixed-itl-ms <ms>', 'fixed timing: inter-token latency in ms', numArg('--fixed-itl-ms', 0))
    .option(
      '--stream-interval <n>', 'tokens per SSE chunk in the SGLang flavour', intArg('--stream-interval', 1, 10_000),
    )
    .option('--reasoning-tokens <n>', 'a reasoning model: each answer thinks this many tokens before its content',
      intArg('--reasoning-tokens', 0, 1_000_000))
    .option('--tokenizer-workers <n>', 'tokenizer worker threads', intArg('--tokenizer-workers', 1, 64))
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain); needs --tls-key')
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .option(
      '--no-prefix-cache',
      'disable automatic prefix caching (vLLM --no-enable-prefix-caching); on by default, as in vLLM v1',
    )
    .option(
      '--noise', "step-time jitter and occasional stalls, as on a GPU (the profile's noise model, or the defaults)",
    )
    .option(
      '--noise-seed <n>', 'seed of the noise draws, to repeat a noisy run (implies --noise; default: random, printed)',
      intArg('--noise-seed', 0, 2 ** 32 - 1),
    )
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (s) => process.stdout.write(s) });
}

/** The server's options from the flags; throws on flags that do not go together. */
function toSimOptions(f: CliFlags): SimOptions {
  if ((f.fixedTtftMs === undefined) !== (f.fixedItlMs === undefined))
    throw new Error('--fixed-ttft-ms and --fixed-itl-ms go together');
  if ((f.tlsCert === undefined) !== (f.tlsKey === undefined)) throw new Error('--tls-cert and --tls-key go together');
  if (f.fixedTtftMs !== undefined && (f.noise || f.noiseSeed !== undefined))
    throw new Error('--noise needs the performance model: leave out --fixed-ttft-ms and --fixed-itl-ms');
  if (f.faultProbability !== undefined && f.faultProbability > 1)
    throw new Error('--fault-probability must be within 0..1');
  // --fault-probability applies to the specs that give no p= of their own.
  const faults = f.fault.flatMap((spec) =>
    parseFaultSpec(spec).map((x) =>
      f.faultProbability !== undefined && !/(^|;)\s*p\s*=/.test(spec) ? { ...x, probability: f.faultProbability } : x,
    ),
  );
  return {
    profile: resolveProfile(f.profile),
    port: f.port,
    host: f.host,
    apiKey: f.apiKey,
    maxQueue: f.maxQueue,
    flavour: f.flavour,
    groundTruth: f.groundTruth ?? false,
    faults,
    fixed: f.fixedTtftMs !== undefined ? { ttftMs: f.fixedTtftMs, itlMs: f.fixedItlMs! } : undefined,
    streamInterval: f.streamInterval,
    reasoningTokens: f.reasoningTokens,
    tokenizerWorkers: f.tokenizerWorkers,
    prefixCache: f.prefixCache,
    noise: f.noise,
    noiseSeed: f.noiseSeed,
    tls: f.tlsCert !== undefined ? { cert: readFileSync(f.tlsCert), key: readFileSync(f.tlsKey!) } : undefined,
  };
}

/** Starts the simulator, says where it serves, and runs until SIGINT, SIGTERM or the parent's exit. */
async function serveUntilStopped(options: SimOptions): Promise<void> {
  const sim = await startSim(options);
  const p = sim.profile;
  const timing = options.fixed
    ? `fixed timing TTFT ${options.fixed.ttftMs} ms, ITL ${options.fixed.itlMs} ms`
    : `profile ${p.name}, prefix cache ${options.prefixCache ? 'on' : 'off'}, ` +
      (sim.noise ? `noise on: ${describeNoise(sim.noise)}` : 'no noise');
  process.stdout.write(`sim: serving ${p.model} (${timing}, ${sim.flavour} flavour) at ${sim.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // Started by sim/child.ts: the IPC channel closes when the parent dies, which must not leave us serving.
    if (process.channel) {
      process.channel.unref();
      process.once('disconnect', stop);
    }
  });
  await sim.close();
  process.stderr.write('sim: stopped\n');
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return EXIT.ok; // --help, --version
      process.stderr.write(`sim: ${e.message.replace(/^error: /, '')}\n`);
      return EXIT.usage;
    }
    throw e;
  }
  const f = program.opts<CliFlags>();
  if (f.listProfiles) {
    process.stdout.write(`${renderProfileList()}\n`);
    return EXIT.ok;
  }
  let options: SimOptions;
  try {
    options = toSimOptions(f);
  } catch (e) {
    process.stderr.write(`sim: ${(e as Error).message}\n`);
    return EXIT.usage;
  }
  await serveUntilStopped(options);
  return EXIT.ok;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`sim: ${(e as Error).message}\n`);
    process.exitCode = EXIT.internal;
  },
);
