// The peers of the accuracy study (bench/accuracy.ts): vllm bench serve (vLLM's venv, bench/peer-vllm-bench.ts runs
// it), AIPerf and GuideLLM (scripts/ensure-peer.sh), each installed on first use into the cache, run alone on the
// client core against the same simulator and judged on the same ground truth as the suite. Runs in Node.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearGroundTruth, fetchGroundTruth } from '../sim/child';
import type { ClientName, ClosedLevel } from './accuracy-args';
import { judge, pairRequests, type ClientRequest, type TruthRecord } from './accuracy-judge';
import { aiperfRequests, guidellmRequests, keyByRank, vllmRequests } from './accuracy-peer-readers';
import { cpuMsOver, runPinned, streamingWindow, type Exit } from './accuracy-run';
import type { Row } from './accuracy-table';
import { lastLineOf, vllmBenchServe, vllmDataset } from './peer-vllm-bench';
import { MODEL, SHAREGPT_MAX_PROMPT_TOKENS } from './peer-vllm-prompts';
import { parseVllmResult } from './peer-vllm-truth';

type PeerName = Exclude<ClientName, 'suite'>;

/** The peers' commands (or why one is missing), the tiny model's tokenizer, and their versions for the heading. */
export interface Peers {
  readonly commands: Partial<Record<PeerName, string>>;
  readonly missing: Partial<Record<PeerName, string>>;
  readonly tokenizerDir: string;
  readonly versions: readonly string[];
}

const VERSIONS: Record<PeerName, string> = {
  vllm: 'vllm bench serve (vLLM 0.32.0)', aiperf: 'AIPerf 0.13.0', guidellm: 'GuideLLM 0.8.1',
};
const ENSURE: Record<PeerName, string[]> = {
  vllm: ['scripts/ensure-vllm.sh'], aiperf: ['scripts/ensure-peer.sh', 'aiperf'],
  guidellm: ['scripts/ensure-peer.sh', 'guidellm'],
};

/** Installs (or finds) each peer asked for; one that cannot be installed shows "-" with the reason. */
export function preparePeers(clients: readonly ClientName[], log: (line: string) => void): Peers {
  const commands: Partial<Record<PeerName, string>> = {};
  const missing: Partial<Record<PeerName, string>> = {};
  const wanted = clients.filter((c): c is PeerName => c !== 'suite');
  let tokenizerDir = '';
  if (wanted.length > 0) {
    log('the tiny model\'s tokenizer (scripts/ensure-hf-model.sh)...');
    tokenizerDir = lastLineOf('scripts/ensure-hf-model.sh');
  }
  for (const p of wanted) {
    log(`${VERSIONS[p]}: ${ENSURE[p].join(' ')}...`);
    try {
      commands[p] = lastLineOf(ENSURE[p][0]!, ...ENSURE[p].slice(1));
    } catch (e) {
      missing[p] = `not installed: ${(e as Error).message}`;
    }
  }
  return { commands, missing, tokenizerDir, versions: wanted.filter((p) => commands[p]).map((p) => VERSIONS[p]) };
}

/** One level as a peer runs it. */
export type PeerLevel = {
  readonly base: string;
  readonly label: string;
  readonly tokens: number;
  readonly context: number;
  readonly ttftMs: number;
} & (
  | { readonly loop: 'closed'; readonly level: ClosedLevel; readonly rounds: number }
  | { readonly loop: 'open'; readonly rate: number; readonly seconds: number }
);

const requestsOf = (l: PeerLevel): number =>
  l.loop === 'closed' ? l.level.streams * l.rounds : Math.max(1, Math.round(l.rate * l.seconds));
const timeoutOf = (l: PeerLevel): number => {
  const streamMs = l.ttftMs + l.tokens * (l.loop === 'closed' ? 1000 / l.level.tokensPerSecond : 10);
  return (l.loop === 'closed' ? l.rounds * streamMs * 5 : l.seconds * 3000) + 300_000;
};

/** What a peer's run gave: its requests, how to name their records, and its exit. */
interface PeerRun {
  readonly exit: Exit;
  readonly requests: readonly ClientRequest[] | null;
  readonly keyOf: (t: TruthRecord) => string | null;
  readonly why: string;
}

async function runVllm(p: Peers, l: PeerLevel, dir: string): Promise<PeerRun> {
  const requests = requestsOf(l);
  const prefix = `acc-${Date.now()}-`;
  const r = await vllmBenchServe({
    vllm: p.commands.vllm!, tokenizerDir: p.tokenizerDir, base: l.base, prefix, dir, requests,
    dataset: vllmDataset({ context: l.context, tokens: l.tokens }, 'suite', requests, dir),
    users: l.loop === 'closed' ? l.level.streams : null, rate: l.loop === 'open' ? l.rate : null,
    timeoutMs: timeoutOf(l),
  });
  return {
    exit: r.exit, why: r.why, keyOf: (t) => t.requestId,
    requests: r.result === null ? null : vllmRequests(prefix, (r.result as ReturnType<typeof parseVllmResult>).outputs),
  };
}

async function runAiperf(p: Peers, l: PeerLevel, dir: string): Promise<PeerRun> {
  const load = l.loop === 'closed' ? ['--concurrency', String(l.level.streams)] : ['--request-rate', String(l.rate)];
  const exit = await runPinned([
    p.commands.aiperf!, 'profile', '--model', MODEL, '--url', l.base, '--endpoint-type', 'chat', '--streaming',
    '--tokenizer', p.tokenizerDir, '--synthetic-input-tokens-mean', String(l.context),
    '--synthetic-input-tokens-stddev', '0', '--output-tokens-mean', String(l.tokens), '--output-tokens-stddev', '0',
    '--extra-inputs', 'ignore_eos:true', ...load, '--request-count', String(requestsOf(l)),
    '--artifact-dir', join(dir, 'out'), '--ui', 'none', '--export-level', 'records', '--no-gpu-telemetry',
    '--no-server-metrics',
  ], { cwd: dir, timeoutMs: timeoutOf(l) });
  try {
    const text = readFileSync(join(dir, 'out', 'profile_export.jsonl'), 'utf8');
    return { exit, why: '', requests: aiperfRequests(text), keyOf: (t) => t.requestId };
  } catch (e) {
    return { exit, why: `exit ${exit.code}, ${(e as Error).message.split('\n')[0]}: ${exit.tail}`, requests: null,
      keyOf: () => null };
  }
}

async function runGuidellm(
  p: Peers, l: PeerLevel, dir: string, truth: () => Promise<TruthRecord[]>,
): Promise<PeerRun> {
  const profile = l.loop === 'closed' ? `kind=concurrent,streams=${l.level.streams}` : `kind=poisson,rate=${l.rate}`;
  const out = join(dir, 'benchmarks.json');
  const exit = await runPinned([
    p.commands.guidellm!, 'run', '--backend', `kind=openai_http,target=${l.base},model=${MODEL}`, '--profile', profile,
    '--constraint', `kind=max_requests,count=${requestsOf(l)}`,
    '--tokenizer', `kind=huggingface_auto,model=${p.tokenizerDir}`,
    '--data', `kind=synthetic_text,prompt_tokens=${l.context},output_tokens=${l.tokens}`,
    '--output', `kind=json,path=${out}`, '--disable-console-interactive',
  ], { cwd: dir, timeoutMs: timeoutOf(l) });
  try {
    const keyed = keyByRank(guidellmRequests(readFileSync(out, 'utf8')), await truth());
    return { exit, why: '', requests: keyed.requests, keyOf: keyed.keyOf };
  } catch (e) {
    return { exit, why: `exit ${exit.code}, ${(e as Error).message.split('\n')[0]}: ${exit.tail}`, requests: null,
      keyOf: () => null };
  }
}

/** One peer at one level: its run, paired and judged; "-" with the reason when it cannot run. */
export async function runPeer(p: Peers, client: ClientName, l: PeerLevel): Promise<Row> {
  const peer = client as PeerName;
  const none = {
    loop: l.loop, level: l.label, client, judgement: null, cpuUsPerToken: null, cpuParts: '', peakRssMb: null,
  };
  if (p.missing[peer] !== undefined || p.commands[peer] === undefined)
    return { ...none, note: p.missing[peer] ?? 'not asked for' };
  if (peer === 'vllm' && l.context > SHAREGPT_MAX_PROMPT_TOKENS)
    return { ...none, note: `its ShareGPT input drops prompts over ${SHAREGPT_MAX_PROMPT_TOKENS} tokens` };
  const dir = mkdtempSync(join(tmpdir(), `accuracy-${peer}-`));
  let truth: TruthRecord[] | null = null;
  const readTruth = async (): Promise<TruthRecord[]> =>
    (truth ??= (await fetchGroundTruth(l.base)) as unknown as TruthRecord[]);
  try {
    await clearGroundTruth(l.base);
    const run = peer === 'vllm' ? await runVllm(p, l, dir)
      : peer === 'aiperf' ? await runAiperf(p, l, dir) : await runGuidellm(p, l, dir, readTruth);
    if (run.requests === null) return { ...none, note: run.why };
    const records = await readTruth();
    const pairing = pairRequests(run.requests, records, run.keyOf);
    const tokens = records.reduce((a, t) => a + t.tokenEpochMs.length, 0);
    const w = streamingWindow(records);
    const notes = [
      run.exit.code !== 0 ? `exit ${run.exit.code}: ${run.exit.tail}` : '',
      pairing.clientOnly > 0 ? `${pairing.clientOnly} without ground truth` : '',
      pairing.truthOnly > 0 ? `${pairing.truthOnly} ground-truth records unpaired` : '',
      l.loop === 'open' ? 'no send lag or times from the intended send: it keeps its own schedule and saves none' : '',
    ];
    return {
      ...none, judgement: judge(pairing.pairs), peakRssMb: run.exit.use.peakRssKb / 1024,
      cpuUsPerToken: (cpuMsOver(run.exit.use, w.fromMs, w.toMs) * 1000) / Math.max(1, tokens),
      note: notes.filter((s) => s).join('; '),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
