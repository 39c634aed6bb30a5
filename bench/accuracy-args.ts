// The accuracy study's command line (bench/accuracy.ts), parsed once into a checked Args; a UserError names the flag.
// Runs in Node.

import { parseArgs as parseCli } from 'node:util';
import { EXIT, UserError } from '../lib/exit-codes';

/** The clients the study can run: the suite (k6 + the agent) and the peers a user would pick instead. */
export const CLIENTS = ['suite', 'vllm', 'aiperf', 'guidellm'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** A closed-loop level: this many streams, each offered this many tokens per second. */
export interface ClosedLevel {
  readonly streams: number;
  readonly tokensPerSecond: number;
}

export interface Args {
  readonly closed: readonly ClosedLevel[];
  /** Open-loop rates, requests per second (Poisson). */
  readonly open: readonly number[];
  readonly clients: readonly ClientName[];
  /** Tokens per closed-loop stream, and per open-loop request. */
  readonly tokens: number;
  readonly openTokens: number;
  /** Seconds of each open-loop rate. */
  readonly openSeconds: number;
  /** Requests per closed-loop level: whole rounds of its streams, at least one round. */
  readonly minRequests: number;
  readonly ttftMs: number;
  readonly context: number;
  readonly json: string | null;
  readonly build: boolean;
}

/** Issue 41's levels: 1 to 1,024 streams at 100 tok/s and 1,024 at 30 tok/s; 5 to 100 requests/s. */
const FULL = {
  closed: '1x100,8x100,32x100,128x100,256x100,512x100,1024x100,1024x30', open: '5,20,50,100', tokens: 300,
  openTokens: 64, openSeconds: 30, minRequests: 16,
};
/**
 * --quick: a subset that runs in two to three minutes: the suite and vllm bench serve unless --clients says otherwise
 * (AIPerf and GuideLLM take 30-80 s to start each run, a few minutes more).
 */
const QUICK = {
  closed: '1x100,32x100,256x100', open: '20', tokens: 100, openTokens: 64, openSeconds: 10, minRequests: 8,
};

const USAGE = '(use --closed 1x100,256x100,1024x30 --open 5,20,50,100 --clients suite,vllm,aiperf,guidellm ' +
  '--tokens 300 --open-tokens 64 --open-seconds 30 --min-requests 16 --ttft-ms 50 --context 1024 --quick ' +
  '--json FILE --no-build)';

const bad = (message: string): never => {
  throw new UserError(`${message} ${USAGE}`, EXIT.usage);
};

/** `NxS` entries: N streams at S tokens/s each. */
export function parseClosed(text: string): ClosedLevel[] {
  if (text.trim() === '') return [];
  return text.split(',').map((entry) => {
    const m = /^(\d+)x(\d+(?:\.\d+)?)$/.exec(entry.trim());
    if (m === null) return bad(`--closed: "${entry}" is not streams x tok/s such as 256x100`);
    const level = { streams: Number(m[1]), tokensPerSecond: Number(m[2]) };
    if (level.streams < 1 || level.streams > 4096) bad(`--closed: ${level.streams} streams is not 1..4096`);
    if (level.tokensPerSecond < 1 || level.tokensPerSecond > 1000) bad(`--closed: ${m[2]} tok/s is not 1..1000`);
    return level;
  });
}

function numberFlag(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  const v = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(v) || v < min || v > max) bad(`--${name}: ${text} is not a number from ${min} to ${max}`);
  return v;
}

/** The command line (after `--`), checked. */
export function parseArgs(argv: readonly string[]): Args {
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseCli({
      args: [...argv], strict: true, allowPositionals: false,
      options: Object.fromEntries([
        ...['closed', 'open', 'clients', 'tokens', 'open-tokens', 'open-seconds', 'min-requests', 'ttft-ms', 'context',
          'json'].map((k) => [k, { type: 'string' }]),
        ['quick', { type: 'boolean' }], ['no-build', { type: 'boolean' }],
      ]) as Record<string, { type: 'string' | 'boolean' }>,
    }).values;
  } catch (e) {
    return bad((e as Error).message.split('\n')[0]!);
  }
  const d = v.quick === true ? QUICK : FULL;
  const s = (k: string): string | undefined => (typeof v[k] === 'string' ? v[k] : undefined);
  const open = (s('open') ?? d.open).split(',').filter((x) => x.trim() !== '').map(Number);
  if (open.some((r) => !(r > 0 && r <= 1000))) bad('--open: requests per second above 0 and up to 1000');
  const clients = (s('clients') ?? (v.quick === true ? 'suite,vllm' : CLIENTS.join(',')))
    .split(',').filter((x) => x !== '');
  const unknown = clients.find((c) => !(CLIENTS as readonly string[]).includes(c));
  if (unknown !== undefined) bad(`--clients: "${unknown}" is not one of ${CLIENTS.join(', ')}`);
  if (clients.length === 0) bad('--clients: at least one');
  const args: Args = {
    closed: parseClosed(s('closed') ?? d.closed), open, clients: clients as ClientName[],
    tokens: numberFlag('tokens', s('tokens'), d.tokens, 2, 8192),
    openTokens: numberFlag('open-tokens', s('open-tokens'), d.openTokens, 2, 8192),
    openSeconds: numberFlag('open-seconds', s('open-seconds'), d.openSeconds, 2, 3600),
    minRequests: numberFlag('min-requests', s('min-requests'), d.minRequests, 1, 100_000),
    ttftMs: numberFlag('ttft-ms', s('ttft-ms'), 50, 1, 60_000),
    context: numberFlag('context', s('context'), 1024, 16, 65_536),
    json: s('json') ?? null, build: v['no-build'] !== true,
  };
  for (const k of ['tokens', 'openTokens', 'openSeconds', 'minRequests', 'context'] as const)
    if (!Number.isInteger(args[k])) bad(`--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: a whole number`);
  if (args.closed.length === 0 && args.open.length === 0) bad('--closed and --open: nothing to measure');
  return args;
}

/** Rounds of a closed-loop level: enough whole rounds of its streams for `minRequests` requests. */
export function roundsOf(streams: number, minRequests: number): number {
  return Math.max(1, Math.ceil(minRequests / streams));
}
