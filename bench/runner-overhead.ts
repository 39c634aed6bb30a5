// Benchmark of the local runner's own cost and timing error on SSE streams, against the simulator's ground truth. Runs in Node.
//
// Simulator and runner are pinned to separate cores (taskset -c 0 / -c 1). At each concurrency the
// runner opens N streams of fixed-timing tokens (TTFT 50 ms, ITL 10 ms = 100 tok/s each), and the
// script records when each content chunk reached its handler (exec.instance.currentTestRunDuration,
// the monotonic clock scripts use). Ground truth is when the simulator wrote each token.
// Usage: npm run bench:runner-overhead [-- --levels 1,16,64 --tokens 300 --no-readme]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const TSX = join(REPO, 'node_modules/.bin/tsx');
const TTFT_MS = 50;
const ITL_MS = 10;

interface Args {
  levels: number[];
  tokens: number;
  readme: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { levels: [1, 16, 64, 256, 512], tokens: 300, readme: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--levels') args.levels = (argv[++i] ?? '').split(',').map(Number);
    else if (a === '--tokens') args.tokens = Number(argv[++i]);
    else if (a === '--no-readme') args.readme = false;
    else throw new Error(`unknown argument ${a} (use --levels 1,16,64 --tokens 300 --no-readme)`);
  }
  if (args.levels.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--levels: positive integers, comma-separated');
  if (!Number.isInteger(args.tokens) || args.tokens < 10) throw new Error('--tokens: an integer >= 10');
  return args;
}

const SCRIPT = `
import sse from 'k6/x/sse';
import exec from 'k6/execution';
import { sleep } from 'k6';

export const options = {
  scenarios: { streams: { executor: 'per-vu-iterations', vus: Number(__ENV.N), iterations: Number(__ENV.ROUNDS), maxDuration: '5m' } },
};
const body = JSON.stringify({ model: __ENV.MODEL, stream: true, max_tokens: Number(__ENV.TOKENS), ignore_eos: true, messages: [{ role: 'user', content: 'hi' }] });

export default async function () {
  const rid = 'bench-' + __ENV.N + '-' + exec.vu.idInTest + '-' + __ITER;
  const times = [];
  let off = -1e18;
  const start = exec.instance.currentTestRunDuration;
  const res = await sse.open(__ENV.BASE_URL + '/chat/completions', {
    method: 'POST', body, timeout: '300s',
    headers: { 'Content-Type': 'application/json', 'x-request-id': rid },
  }, (client) => {
    client.on('event', (e) => {
      if (!e.data || e.data === '[DONE]') return;
      const now = exec.instance.currentTestRunDuration;
      const o = JSON.parse(e.data);
      const d = o.choices && o.choices[0] && o.choices[0].delta;
      if (d && d.content) {
        times.push(now);
        // Date.now() is whole ms: its largest difference to the float clock is the epoch offset.
        const x = Date.now() - now;
        if (x > off) off = x;
      }
    });
  });
  // Report after every stream of the round has ended: stderr writes block while the pipe is full.
  await sleep(1);
  console.log(JSON.stringify({ rid, start, off, status: res.status, times }));
}
`;

interface ClientRecord {
  rid: string;
  start: number;
  off: number;
  status: number;
  times: number[];
}

interface TruthRecord {
  requestId: string;
  arrivalEpochMs: number;
  tokenEpochMs: number[];
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const i = q * (s.length - 1);
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo);
}

/** Raised priority keeps other work on the machine from preempting the two measured processes, when allowed. */
const NICE = spawnSync('nice', ['-n', '-10', 'true'], { encoding: 'utf8' }).stderr === '' ? ['nice', '-n', '-10'] : [];

async function startSim(): Promise<{ url: string; stop: () => void }> {
  const child = spawn('taskset', ['-c', '0', ...NICE, TSX, join(REPO, 'scripts/sim.ts'), '--port', '0', '--fixed-ttft-ms', String(TTFT_MS), '--fixed-itl-ms', String(ITL_MS), '--ground-truth'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/v1/.exec(out);
      if (m) res(m[0]);
    });
    child.on('exit', (code) => rej(new Error(`simulator exited (${code}) before listening`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

interface LevelResult {
  streams: number;
  offered: number;
  achieved: number;
  keepsUp: boolean;
  delayP99: number;
  cpuPer1k: number;
  itlMed: number;
  itlP99: number;
  ttftMed: number;
  ttftP99: number;
  loopLagP99: number;
  matched: number;
  total: number;
}

function runLevel(base: string, model: string, n: number, tokens: number): Promise<{ records: ClientRecord[]; health: { scenarios: Record<string, { cpuTimeMs: number; eventLoopLagMs: { p99: number } }> }; code: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'runner-overhead-'));
  const script = join(dir, 'streams.js');
  writeFileSync(script, SCRIPT);
  const rounds = n <= 16 ? 3 : 1;
  return new Promise((res, rej) => {
    const child = spawn(
      'taskset',
      ['-c', '1', ...NICE, TSX, join(REPO, 'runner/cli.ts'), 'run', '-q', '--health-out', join(dir, 'health.json'), '-e', `BASE_URL=${base}`, '-e', `MODEL=${model}`, '-e', `N=${n}`, '-e', `TOKENS=${tokens}`, '-e', `ROUNDS=${rounds}`, script],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', rej);
    child.on('close', (code) => {
      const records: ClientRecord[] = [];
      for (const line of err.split('\n')) {
        const m = /level=info msg=("(?:[^"\\]|\\.)*") source=console/.exec(line);
        if (m) records.push(JSON.parse(JSON.parse(m[1]!) as string) as ClientRecord);
      }
      let health;
      try {
        health = JSON.parse(readFileSync(join(dir, 'health.json'), 'utf8'));
      } catch {
        rej(new Error(`runner failed (exit ${code}): ${err.slice(-2000)}`));
        return;
      }
      res({ records, health, code });
    });
  });
}

async function measure(base: string, model: string, n: number, tokens: number): Promise<LevelResult> {
  const root = base.replace(/\/v1$/, '');
  await fetch(`${root}/debug/ground-truth`, { method: 'DELETE' });
  const { records, health } = await runLevel(base, model, n, tokens);
  const truth = ((await (await fetch(`${root}/debug/ground-truth`)).json()) as { records: TruthRecord[] }).records;
  const byId = new Map(truth.map((t) => [t.requestId, t]));
  // Script times become epoch ms with the largest Date.now() - clock difference seen (Date.now() is whole ms).
  const offset = Math.max(...records.map((r) => r.off));
  const itlErr: number[] = [];
  const ttftErr: number[] = [];
  const delay: number[] = [];
  const rates: number[] = [];
  let tokensSeen = 0;
  let matched = 0;
  for (const r of records) {
    const t = byId.get(r.rid);
    tokensSeen += r.times.length;
    if (!t) continue;
    // One content token per chunk in fixed mode; collapse equal emission times in case a chunk carried several.
    const chunks = t.tokenEpochMs.filter((v, i, a) => i === 0 || v !== a[i - 1]);
    if (chunks.length !== r.times.length || chunks.length < 2) continue;
    matched++;
    for (let i = 1; i < chunks.length; i++) itlErr.push(Math.abs(r.times[i]! - r.times[i - 1]! - (chunks[i]! - chunks[i - 1]!)));
    ttftErr.push(Math.abs(r.times[0]! - r.start - (chunks[0]! - t.arrivalEpochMs)));
    for (let i = 0; i < chunks.length; i++) delay.push(r.times[i]! + offset - chunks[i]!);
    rates.push(((r.times.length - 1) / (r.times[r.times.length - 1]! - r.times[0]!)) * 1000);
  }
  const offered = 1000 / ITL_MS;
  const achieved = rates.reduce((a, b) => a + b, 0) / Math.max(1, rates.length);
  const sc = health.scenarios.streams!;
  // Two processes' epoch clocks (performance.timeOrigin) disagree by a few ms: measure lateness from
  // the fastest delivery seen, i.e. the loopback latency counts as zero.
  const fastest = delay.reduce((a, b) => Math.min(a, b), Infinity);
  const delayP99 = quantile(delay, 0.99) - fastest;
  return {
    streams: n,
    offered,
    achieved,
    keepsUp: achieved >= 0.99 * offered && delayP99 < ITL_MS && matched === records.length,
    delayP99,
    cpuPer1k: (sc.cpuTimeMs / Math.max(1, tokensSeen)) * 1000,
    itlMed: quantile(itlErr, 0.5),
    itlP99: quantile(itlErr, 0.99),
    ttftMed: quantile(ttftErr, 0.5),
    ttftP99: quantile(ttftErr, 0.99),
    loopLagP99: sc.eventLoopLagMs.p99,
    matched,
    total: records.length,
  };
}

function renderTable(rows: readonly LevelResult[], tokens: number): string {
  const f = (v: number, d = 2): string => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
  const lines = [
    `Fixed timing TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms (100 tok/s per stream), ${tokens} tokens per stream (3 rounds up to 16 streams); simulator on core 0, runner on core 1${NICE.length ? ', both at nice -10' : ''}; machine load average ${loadavg().map((v) => v.toFixed(1)).join(' / ')} (1/5/15 min) at the end.`,
    'Errors are absolute differences to the simulator\'s ground truth; delivery delay is measured from the fastest delivery seen (loopback latency = 0); keeps up = achieved >= 99% of offered and delivery delay p99 < one ITL.',
    '',
    '| streams | offered tok/s per stream | achieved tok/s per stream | keeps up | delivery delay p99 (ms) | runner CPU ms / 1k tokens | ITL error median / p99 (ms) | TTFT error median / p99 (ms) | event-loop lag p99 (ms) | streams matched |',
    '|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(`| ${r.streams} | ${f(r.offered, 0)} | ${f(r.achieved)} | ${r.keepsUp ? 'yes' : 'no'} | ${f(r.delayP99)} | ${f(r.cpuPer1k, 1)} | ${f(r.itlMed, 3)} / ${f(r.itlP99, 3)} | ${f(r.ttftMed, 2)} / ${f(r.ttftP99, 2)} | ${f(r.loopLagP99, 1)} | ${r.matched}/${r.total} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0) throw new Error('taskset is needed to pin the simulator and the runner to separate cores');
  const sim = await startSim();
  try {
    const model = ((await (await fetch(`${sim.url}/models`)).json()) as { data: { id: string }[] }).data[0]!.id;
    const rows: LevelResult[] = [];
    for (const n of args.levels) {
      process.stderr.write(`runner-overhead: ${n} streams...\n`);
      rows.push(await measure(sim.url, model, n, args.tokens));
    }
    const table = renderTable(rows, args.tokens);
    process.stdout.write(`${table}\n`);
    if (args.readme) {
      const path = join(REPO, 'runner/README.md');
      const text = readFileSync(path, 'utf8');
      const start = '<!-- runner-overhead:start -->';
      const end = '<!-- runner-overhead:end -->';
      const a = text.indexOf(start);
      const b = text.indexOf(end);
      if (a < 0 || b < a) throw new Error(`runner/README.md lacks the ${start} ... ${end} markers`);
      writeFileSync(path, `${text.slice(0, a + start.length)}\n${table}\n${text.slice(b)}`);
    }
  } finally {
    sim.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`runner-overhead: ${(e as Error).message}\n`);
  process.exit(1);
});
