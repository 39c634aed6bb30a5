// Benchmarks the suite against vLLM's own benchmark client, `vllm bench serve`, as a peer: both run the same workload
// against the simulator's ground truth, and each one's TTFT and ITL error is printed. Runs in Node.
//
// The workload (issue 31): chat completions, 1K-token prompts, 128 output tokens (ignore_eos), N concurrent users,
// each sending its requests back to back (N = 1, 8, 32; 4 x N requests, at least 16, in whole rounds). The simulator
// (fixed timing: TTFT 50 ms, ITL 10 ms; --ground-truth: when it read each request's headers and wrote each token) runs
// as its own process on core 0; each client runs alone on core 1 (taskset; nice -10 when allowed):
//   suite             a stock k6 running dist/sweep.js with one cell (contexts [1024], concurrencies [N], 128 tokens),
//                     the measuring agent beside it; llm_ttft and llm_itl from the run's CSV;
//   vllm bench serve  the venv's own CLI (scripts/ensure-vllm.sh), --backend openai-chat, --max-concurrency N, run
//                     twice: with its own random prompts (--dataset-name random: random token ids, decoded) and
//                     with the suite's prompts; its --save-detailed JSON (ttfts and itls per request, in order).
// Why twice: the simulator caches the suite's prompts (one shared body behind a unique first line) but tokenizes each
// random prompt whole, on its own core; 32 of them at once keep that core busy for hundreds of ms, late to read new
// requests and writing tokens in bursts. With the suite's prompts, the simulator does the same work for both clients.
// They go in as a ShareGPT file (--dataset-name sharegpt): the custom dataset reads JSONL with pandas, which the venv
// lacks (scripts/vllm-requirements.txt), and ShareGPT drops prompts over 1,024 tokens (is_valid_sequence in
// vllm/benchmarks/datasets/datasets.py), so the body loses its last words until the prompt fits (Qwen3 count).
// Before the first run, one request of each shared prompt body warms the simulator's tokenizer cache (warmSimulator).
// Ground truth is cleared before each client runs, so a run's records are that client's own requests.
//
// How each client measures (read from their sources, so the errors below can be explained):
//   suite   the agent stamps every read with the kernel's receive time of its bytes (SO_TIMESTAMPNS). TTFT: request
//           start (before dialling) to the first generated token; the chat role-only chunk is not a token. ITL: one
//           value per token after the first (a chunk of k tokens spreads its gap over k values).
//           docs/reference/agent-api.md.
//   vllm    vllm/benchmarks/lib/endpoint_request_func.py (async_request_openai_chat_completions), 0.32.0: st =
//           time.perf_counter() just before aiohttp's session.post, inside the --max-concurrency semaphore (so its
//           own queueing is left out, the connect and the body upload are in). It reads with
//           response.content.iter_any(), splits the bytes into SSE messages and stamps each message with
//           perf_counter() when its loop reaches it: user-space time, after the event loop got round to the read.
//           TTFT: st to the first message with non-empty `choices`, which on the chat API is the role-only chunk
//           (vLLM, and the simulator, write it just before the first token). ITL: the gap between consecutive
//           messages with `choices`: per chunk, not per token (one gap for a k-token chunk); with the role chunk
//           counted, a 128-token stream gives 128 gaps, the first the role-to-first-token gap (about 0 ms).
//           serve.py pools every request's gaps and takes numpy's linear percentile, as k6's Trend and
//           analysis/stats.ts do, so the p99s compare like for like. The request id (--request-id-prefix + index) goes
//           out as x-request-id, which the simulator keeps as the ground truth's requestId: its requests are matched
//           one by one. The simulator's vLLM flavour writes one token per chunk, so per-chunk and per-token ITL agree
//           but for the role chunk.
// Against ground truth, for each client's own requests:
//   TTFT error   client mean TTFT - truth mean TTFT (truth: first token written - request headers read), also medians;
//   ITL p99      client p99 of all its ITL values against the p99 of every gap between token writes;
//   ITL < 1 ms   share of values under 1 ms: tokens read in one read share a time (the truth's own share: tokens
//                written together).
// Targets: the suite's TTFT error at most half of vllm bench serve's at 32 users (judged against each of its runs);
// the suite's ITL p99 within 2 ms of the truth at every level.
// Usage: npm run bench:peer-vllm [-- --levels 1,8,32 --num-prompts 64 --context 1024 --tokens 128 --ttft-ms 50
//        --itl-ms 10 --vllm-prompts random,suite --no-build]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs as parseCli } from 'node:util';
import { EXIT, UserError } from '../lib/exit-codes';
import { ensureAgent } from '../orchestrator/agent-build';
import { runPinned, type Exit } from './accuracy-run';
import { startAgent } from '../orchestrator/agent-process';
import { buildBundles } from '../orchestrator/bundles';
import { chooseEngine } from '../orchestrator/engine';
import { clearGroundTruth, fetchGroundTruth, startSimChild } from '../sim/child';
import {
  type ClientTimes, matchByRequestId, type Comparison, compare, parseVllmResult, parseK6Csv,
} from './peer-vllm-truth';
import {
  MODEL, levelShape, SHAREGPT_MAX_PROMPT_TOKENS, SHAREGPT, suitePrompts, shareGptFile,
} from './peer-vllm-prompts';

const REPO = resolve(import.meta.dirname, '..');
const BUNDLE = join(REPO, 'dist/sweep.js');
const NAME = 'peer-vllm-bench';
/** The level whose TTFT errors the first target compares. */
const TARGET_LEVEL = 32;
const SIM_CORE = '0';
const CLIENT_CORE = '1';
/** Raised priority keeps other work on the machine from preempting the measured processes, when allowed. */
const NICE = spawnSync('nice', ['-n', '-10', 'true'], { encoding: 'utf8' }).stderr === '' ? ['nice', '-n', '-10'] : [];

export interface Args {
  levels: number[];
  /** Requests per level; null: 4 x the level, at least 16. Rounded up to whole rounds of the level's users. */
  numPrompts: number | null;
  /** Prompt length in tokens (the simulator's fixed timing ignores it; its tokenizer does not). */
  context: number;
  tokens: number;
  ttftMs: number;
  itlMs: number;
  /**
   * What vllm bench serve sends, one run each: its random prompts, the suite's own (a ShareGPT file, so at most
   * 1,024 tokens). Default: both, or its random prompts alone when the context is longer.
   */
  vllmPrompts: VllmPrompts[];
  build: boolean;
}

const VLLM_PROMPTS = ['random', 'suite'] as const;
export type VllmPrompts = (typeof VLLM_PROMPTS)[number];

const USAGE = '(use --levels 1,8,32 --num-prompts 64 --context 1024 --tokens 128 --ttft-ms 50 --itl-ms 10 ' +
  '--vllm-prompts random,suite --no-build)';

/** The command line, checked; a UserError (exit 2) names what is wrong. */
export function parseArgs(argv: readonly string[]): Args {
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseCli({
      args: [...argv], strict: true, allowPositionals: false,
      options: {
        levels: { type: 'string' }, 'num-prompts': { type: 'string' }, context: { type: 'string' },
        tokens: { type: 'string' }, 'ttft-ms': { type: 'string' }, 'itl-ms': { type: 'string' },
        'vllm-prompts': { type: 'string' }, 'no-build': { type: 'boolean' },
      },
    }).values;
  } catch (e) {
    throw new UserError(`${(e as Error).message.split('\n')[0]} ${USAGE}`, EXIT.usage);
  }
  const num = (name: string, fallback: number): number => (v[name] === undefined ? fallback : Number(v[name]));
  const args: Args = {
    levels: v.levels === undefined ? [1, 8, 32] : String(v.levels).split(',').map((s) => (s === '' ? NaN : Number(s))),
    numPrompts: v['num-prompts'] === undefined ? null : Number(v['num-prompts']),
    context: num('context', 1024), tokens: num('tokens', 128), ttftMs: num('ttft-ms', 50), itlMs: num('itl-ms', 10),
    vllmPrompts: v['vllm-prompts'] === undefined
      ? VLLM_PROMPTS.filter((p) => p === 'random' || num('context', 1024) <= SHAREGPT_MAX_PROMPT_TOKENS)
      : (String(v['vllm-prompts']).split(',') as VllmPrompts[]),
    build: v['no-build'] !== true,
  };
  const bad = (message: string): never => {
    throw new UserError(message, EXIT.usage);
  };
  if (args.levels.length === 0 || args.levels.some((n) => !Number.isInteger(n) || n < 1 || n > 512))
    bad('--levels: integers from 1 to 512, comma-separated');
  if (args.numPrompts !== null && (!Number.isInteger(args.numPrompts) || args.numPrompts < 1))
    bad('--num-prompts: an integer >= 1');
  if (!Number.isInteger(args.context) || args.context < 16 || args.context > 65536)
    bad('--context: an integer 16..65536');
  if (!Number.isInteger(args.tokens) || args.tokens < 2 || args.tokens > 4096) bad('--tokens: an integer 2..4096');
  if (!Number.isFinite(args.ttftMs) || args.ttftMs < 1) bad('--ttft-ms: a number of ms >= 1');
  if (!Number.isFinite(args.itlMs) || args.itlMs < 1) bad('--itl-ms: a number of ms >= 1');
  const unknown = args.vllmPrompts.find((x) => !(VLLM_PROMPTS as readonly string[]).includes(x));
  if (unknown !== undefined) bad(`--vllm-prompts: "${unknown}" is not one of ${VLLM_PROMPTS.join(', ')}`);
  if (args.vllmPrompts.includes('suite') && args.context > SHAREGPT_MAX_PROMPT_TOKENS)
    bad(`--vllm-prompts suite: vllm bench serve's ShareGPT dataset drops prompts over ${SHAREGPT_MAX_PROMPT_TOKENS} ` +
      'tokens; use --context 1024 or less, or --vllm-prompts random');
  return args;
}

// ---------------------------------------------------------------------------------------------
// Clients, rows and verdicts

/** The suite, and vllm bench serve with either kind of prompts. */
export type ClientName = 'suite' | `vllm-${VllmPrompts}`;

export interface Row {
  readonly level: number;
  readonly client: ClientName;
  readonly comparison: Comparison | null;
  /** Why a run has no figures or what went wrong in it ('' when nothing). */
  readonly note: string;
}

/**
 * The two targets, each met or missed with its figures: the TTFT one at `level` (32 unless not measured) against each
 * kind of vllm bench serve run measured there, the ITL one at every level.
 */
export function verdicts(rows: readonly Row[], level = TARGET_LEVEL): string[] {
  const at = (client: ClientName): Comparison | null =>
    rows.find((r) => r.level === level && r.client === client)?.comparison ?? null;
  const suite = at('suite');
  const peers = VLLM_PROMPTS.map((p) => ({ p, c: at(`vllm-${p}`) })).filter((x) => x.c !== null);
  const ttft = suite === null || peers.length === 0
    ? [`not measured (no ${level}-user row of both clients)`]
    : peers.map(({ p, c }) => {
      const ratio = Math.abs(suite.ttftMean.error) / Math.abs(c!.ttftMean.error);
      return `${ratio <= 0.5 ? 'met' : 'missed'} against ${PROMPTS_LABEL[p]}: suite ${f(suite.ttftMean.error)} ms, ` +
        `vllm bench serve ${f(c!.ttftMean.error)} ms (${f(ratio)}x)`;
    });
  const suites = rows.filter((r) => r.client === 'suite');
  const worst = Math.max(...suites.map((r) => Math.abs(r.comparison?.itlP99.error ?? Infinity)));
  const itl = suites.length === 0
    ? 'not measured'
    : `${worst <= 2 ? 'met' : 'missed'}: largest |error| ${f(worst)} ms over ` +
      `${suites.map((r) => r.level).join(', ')} users`;
  return [
    `Target 1, suite TTFT mean error at most half of vllm bench serve's at ${level} users: ${ttft.join('; ')}.`,
    `Target 2, suite ITL p99 within 2 ms of the truth: ${itl}.`,
  ];
}

// ---------------------------------------------------------------------------------------------
// Output

const f = (v: number | undefined, d = 2): string => (v !== undefined && Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const pct = (v: number): string => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : 'n/a');
const PROMPTS_LABEL: Record<VllmPrompts, string> = {
  random: 'its random prompts', suite: `the suite's prompts (at most ${SHAREGPT_MAX_PROMPT_TOKENS} tokens)`,
};
const CLIENT_LABEL: Record<ClientName, string> = {
  suite: `suite: k6 + agent (core ${CLIENT_CORE})`,
  'vllm-random': `vllm bench serve, ${PROMPTS_LABEL.random} (core ${CLIENT_CORE})`,
  'vllm-suite': `vllm bench serve, ${PROMPTS_LABEL.suite} (core ${CLIENT_CORE})`,
};

/** The Markdown table, one row per level and client. */
export function renderTable(rows: readonly Row[]): string {
  const lines = [
    '| users | client | requests | prompt tokens (server) | TTFT mean client / truth (ms) | TTFT mean error (ms) | ' +
    'TTFT median error (ms) | ITL p99 client / truth (ms) | ITL p99 error (ms) | ' +
    'ITL values per request client / truth | ITL < 1 ms client / truth | note |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const c = r.comparison;
    const cells = c === null
      ? Array<string>(9).fill('n/a')
      : [
        `${c.requests}`, f(c.promptTokens, 0), `${f(c.ttftMean.client)} / ${f(c.ttftMean.truth)}`, f(c.ttftMean.error),
        f(c.ttftMedian.error), `${f(c.itlP99.client)} / ${f(c.itlP99.truth)}`, f(c.itlP99.error),
        `${f(c.itlPerRequest.client, 1)} / ${f(c.itlPerRequest.truth, 1)}`,
        `${pct(c.together.client)} / ${pct(c.together.truth)}`,
      ];
    lines.push(`| ${r.level} | ${CLIENT_LABEL[r.client]} | ${cells.join(' | ')} | ${r.note.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Running the clients

interface Context {
  readonly args: Args;
  /** The simulator, http://127.0.0.1:<port> (no /v1). */
  readonly base: string;
  readonly k6: string;
  readonly vllm: string;
  readonly tokenizerDir: string;
}

/** Generous time for one client's run of a level before it is killed. */
function timeoutMs(ctx: Context, rounds: number): number {
  const streamMs = ctx.args.ttftMs + ctx.args.tokens * ctx.args.itlMs;
  return rounds * streamMs * 5 + 180_000;
}

/**
 * Sends the simulator one request of each prompt body the clients share (the suite's, and its ShareGPT cut), so its
 * tokenizer cache holds them before anything is measured. Cold, the first 32 requests at once each tokenize the body
 * on the simulator's core: it reads their headers up to tens of ms late and the ground truth lays that at the door of
 * whichever client went first (measured: the suite's TTFT error at 32 users 15.7 ms cold, 2-5 ms warm).
 */
async function warmSimulator(ctx: Context): Promise<void> {
  const { context, vllmPrompts } = ctx.args;
  const cut = vllmPrompts.includes('suite') ? suitePrompts(context, 1, 0, SHAREGPT) : [];
  const texts = [...suitePrompts(context, 1, 0, null), ...cut];
  for (const content of texts) {
    const r = await fetch(`${ctx.base}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content }], max_tokens: 1 }),
    });
    await r.text();
    if (!r.ok) throw new Error(`the simulator answered the warm-up request with ${r.status}`);
  }
}

/** The suite: dist/sweep.js on a stock k6 with one cell, a fresh agent beside it, both on the client core. */
async function runSuite(ctx: Context, users: number, rounds: number): Promise<Row> {
  const { args } = ctx;
  const dir = mkdtempSync(join(tmpdir(), `${NAME}-suite-`));
  const plan = join(dir, 'plan.json');
  const cellSeconds = Math.ceil((rounds * (args.ttftMs + args.tokens * args.itlMs) * 3) / 1000 + 60);
  writeFileSync(plan, JSON.stringify({
    target: { metricsUrl: null }, schedule: { cellSeconds },
    sweep: { contexts: [args.context], concurrencies: [users], rounds, outputTokens: args.tokens },
  }));
  const csv = join(dir, 'samples.csv');
  await clearGroundTruth(ctx.base);
  const agent = await startAgent({ prefix: ['taskset', '-c', CLIENT_CORE, ...NICE] });
  let exit: Exit;
  try {
    const env = { PLAN: plan, BASE_URL: `${ctx.base}/v1`, MODEL, RESULTS_DIR: dir, LLM_AGENT: agent.url };
    exit = await runPinned([
      ctx.k6, 'run', '--quiet', '--no-usage-report', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      '--out', `csv=fileName=${csv},timeFormat=unix_milli`, BUNDLE,
    ], { cwd: dir, env: { K6_NO_USAGE_REPORT: 'true' }, timeoutMs: timeoutMs(ctx, rounds) });
  } finally {
    await agent.stop();
  }
  let times: ClientTimes & { errors: number };
  try {
    times = parseK6Csv(readFileSync(csv, 'utf8'));
  } catch (e) {
    const note = `k6 exit ${exit.code}: ${(e as Error).message}; ${exit.tail}`;
    return { level: users, client: 'suite', comparison: null, note };
  } finally {
    // What is kept of a run is its row: the plan, CSV and summary go (a run of 32 users writes about 2 MB).
    rmSync(dir, { recursive: true, force: true });
  }
  // Cleared before the run: every completed record is one of this run's requests (no ids to match them by).
  const truth = (await fetchGroundTruth(ctx.base)).filter((r) => r.outcome === 'completed');
  const comparison = compare(times, truth);
  const notes = [
    exit.code !== 0 ? `k6 exit ${exit.code}: ${exit.tail}` : '', times.errors > 0 ? `${times.errors} failed` : '',
    comparison.truthRequests !== comparison.requests ? `${comparison.truthRequests} ground-truth records` : '',
  ];
  return { level: users, client: 'suite', comparison, note: notes.filter((s) => s).join('; ') };
}

/** vllm bench serve's dataset arguments: its random prompts, or the suite's written as a ShareGPT file in `dir`. */
export function vllmDataset(
  args: Pick<Args, 'context' | 'tokens'>, prompts: VllmPrompts, requests: number, dir: string,
): string[] {
  if (prompts === 'random') {
    const lengths = ['--random-input-len', String(args.context), '--random-output-len', String(args.tokens)];
    return ['--dataset-name', 'random', ...lengths];
  }
  const file = join(dir, 'prompts.json');
  const nonce = Math.floor(Math.random() * 1_000_000);
  writeFileSync(file, shareGptFile(suitePrompts(args.context, requests, nonce, SHAREGPT)));
  // The text goes out as the user message, as the suite sends it; ShareGPT applies no template (the server does).
  return ['--dataset-name', 'sharegpt', '--dataset-path', file, '--sharegpt-output-len', String(args.tokens),
    '--disable-shuffle'];
}

/** One run of vllm bench serve against the simulator: how it is asked, and where its saved result goes. */
export interface VllmRun {
  readonly vllm: string;
  readonly tokenizerDir: string;
  /** The simulator, http://127.0.0.1:<port> (no /v1). */
  readonly base: string;
  readonly dataset: readonly string[];
  /** Closed loop: at most this many requests at once; null with a rate. */
  readonly users: number | null;
  /** Open loop: Poisson arrivals at this many requests/s; null for back to back. */
  readonly rate: number | null;
  readonly requests: number;
  /** Its --request-id-prefix: request i goes out with x-request-id `${prefix}${i}`. */
  readonly prefix: string;
  readonly dir: string;
  readonly timeoutMs: number;
}

/** Runs vllm bench serve pinned to the client core; its per-request results, or why there are none. */
export async function vllmBenchServe(
  r: VllmRun,
): Promise<{ exit: Exit; result: ReturnType<typeof parseVllmResult> | null; why: string }> {
  const load = r.rate === null
    ? ['--max-concurrency', String(r.users)]
    : ['--request-rate', String(r.rate), '--burstiness', '1'];
  const exit = await runPinned([
    r.vllm, 'bench', 'serve', '--backend', 'openai-chat', '--base-url', r.base,
    '--endpoint', '/v1/chat/completions', '--model', MODEL, '--tokenizer', r.tokenizerDir, ...r.dataset, '--ignore-eos',
    ...load, '--num-prompts', String(r.requests), '--request-id-prefix', r.prefix,
    '--percentile-metrics', 'ttft,itl', '--metric-percentiles', '50,99', '--disable-tqdm',
    '--save-result', '--save-detailed', '--result-dir', r.dir, '--result-filename', 'result.json',
  ], { cwd: r.dir, timeoutMs: r.timeoutMs });
  try {
    return { exit, result: parseVllmResult(readFileSync(join(r.dir, 'result.json'), 'utf8')), why: '' };
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no result.json' : (e as Error).message;
    return { exit, result: null, why: `exit ${exit.code}, ${why}: ${exit.tail}` };
  }
}

/** vllm bench serve with the same users, requests and lengths; its detailed results matched to the truth by id. */
async function runVllm(ctx: Context, users: number, requests: number, prompts: VllmPrompts): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), `${NAME}-vllm-`));
  const prefix = `peer-${users}-${prompts}-`;
  const client: ClientName = `vllm-${prompts}`;
  const dataset = vllmDataset(ctx.args, prompts, requests, dir);
  await clearGroundTruth(ctx.base);
  let run: Awaited<ReturnType<typeof vllmBenchServe>>;
  try {
    run = await vllmBenchServe({
      vllm: ctx.vllm, tokenizerDir: ctx.tokenizerDir, base: ctx.base, dataset, users, rate: null, requests, prefix, dir,
      timeoutMs: timeoutMs(ctx, requests / users) + 120_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { exit, result } = run;
  if (result === null) return { level: users, client, comparison: null, note: run.why };
  const m = matchByRequestId(prefix, result.outputs, await fetchGroundTruth(ctx.base));
  const comparison = compare(m.client, m.truth);
  const failed = result.outputs.filter((o) => o.error !== '').length;
  // Our reading of its per-request figures must give what it printed itself.
  const own = Math.max(
    Math.abs(comparison.ttftMean.client - result.meanTtftMs), Math.abs(comparison.itlP99.client - result.p99ItlMs),
  );
  const notes = [
    exit.code !== 0 ? `exit ${exit.code}: ${exit.tail}` : '', failed > 0 ? `${failed} failed` : '',
    m.unmatched > 0 ? `${m.unmatched} without ground truth` : '',
    m.clientShorter > 0 ? `${m.clientShorter} shorter than the server's TTFT (mismatched?)` : '',
    m.unmatched === 0 && failed === 0 && !(own < 0.01) ? `its own summary differs by ${f(own, 3)} ms` : '',
  ];
  return { level: users, client, comparison, note: notes.filter((s) => s).join('; ') };
}

// ---------------------------------------------------------------------------------------------
// Main

/** The last stdout line of a shell script (the ensure-* scripts print the path they ensured last). */
export function lastLineOf(script: string, ...args: string[]): string {
  const r = spawnSync('sh', [join(REPO, script), ...args], {
    cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || line === '') throw new UserError(`${script} failed (exit ${r.status})`, EXIT.internal);
  return line;
}

interface Tools {
  readonly k6: string;
  readonly k6Version: string;
  /** The `vllm` wrapper of the venv. */
  readonly vllm: string;
  /** The tiny model's directory: Qwen3's real tokenizer, for vllm bench serve's random prompts. */
  readonly tok: string;
}

async function prepare(args: Args, log: (line: string) => void): Promise<Tools> {
  if (spawnSync('taskset', ['-c', CLIENT_CORE, 'true']).status !== 0)
    throw new UserError(
      `taskset and a core ${CLIENT_CORE} are needed: the simulator and the clients run on separate cores`,
    );
  if (args.build) {
    log('building the bundles and the agent...');
    await buildBundles();
    await ensureAgent(log);
  }
  const engine = await chooseEngine(log);
  log('the vLLM venv and the tiny model\'s tokenizer...');
  const vllm = lastLineOf('scripts/ensure-vllm.sh');
  const tok = lastLineOf('scripts/ensure-hf-model.sh');
  return { k6: engine.command[0]!, k6Version: engine.version, vllm, tok };
}

function conditions(args: Args, k6Version: string, vllm: string, loadStart: readonly number[]): string {
  const la = (v: readonly number[]): string => v.map((x) => x.toFixed(1)).join(' / ');
  const vllmVersion = /vllm-([\d.]+)/.exec(vllm)?.[1] ?? 'unknown';
  return [
    `${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); the simulator on ` +
    `core ${SIM_CORE}, each client alone on core ${CLIENT_CORE}` +
    `${NICE.length ? ', all at nice -10' : ' (nice -10 not permitted)'}; ` +
    `load average ${la(loadStart)} at the start, ${la(loadavg())} at the end.`,
    `Simulator: fixed timing, TTFT ${args.ttftMs} ms, ITL ${args.itlMs} ms, vLLM flavour (one token per chunk). ` +
    `Workload: chat, ${args.context}-token prompts, ${args.tokens} tokens (ignore_eos), users back to back. ` +
    `Clients: ${k6Version}, stock, dist/sweep.js with the measuring agent; vllm bench serve ${vllmVersion} ` +
    `(openai-chat; ${args.vllmPrompts.map((p) => PROMPTS_LABEL[p]).join(', ')}).`,
  ].join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const log = (line: string): void => void process.stderr.write(`${NAME}: ${line}\n`);
  const { k6, k6Version, vllm, tok } = await prepare(args, log);
  const loadStart = loadavg();
  const sim = await startSimChild(
    ['--fixed-ttft-ms', String(args.ttftMs), '--fixed-itl-ms', String(args.itlMs), '--ground-truth'],
    ['taskset', '-c', SIM_CORE, ...NICE],
  );
  const ctx: Context = { args, base: sim.base, k6, vllm, tokenizerDir: tok };
  const rows: Row[] = [];
  try {
    await warmSimulator(ctx);
    for (const users of args.levels) {
      const { rounds, requests } = levelShape(users, args.numPrompts);
      log(`${users} users, ${requests} requests: the suite...`);
      rows.push(await runSuite(ctx, users, rounds));
      for (const prompts of args.vllmPrompts) {
        log(`${users} users, ${requests} requests: vllm bench serve, ${PROMPTS_LABEL[prompts]}...`);
        rows.push(await runVllm(ctx, users, requests, prompts));
      }
    }
  } finally {
    await sim.stop();
  }
  const level = args.levels.includes(TARGET_LEVEL) ? TARGET_LEVEL : Math.max(...args.levels);
  const text = [conditions(args, k6Version, vllm, loadStart), '', renderTable(rows), '', ...verdicts(rows, level)];
  process.stdout.write(`${text.join('\n')}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    process.stderr.write(`${NAME}: ${(e as Error).message}\n`);
    process.exit(e instanceof UserError ? e.exitCode : EXIT.internal);
  });
}

export { main };
