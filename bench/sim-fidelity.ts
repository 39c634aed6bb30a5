// Benchmarks the simulator's fidelity: prints predicted vs published values of the seed reports' points. Runs in Node.
// It runs every seed report's published points (bench/fidelity-points.ts) over real HTTP streams, profiles A-E.
//
// The simulator runs as a child process (the CLI), so the measuring client below has its own event loop.
// Every figure is measured from the client side, as the suite measures it (docs/design/architecture.md definitions):
// TTFT = request start -> first content token; per-user decode = (tokens - 1) / (e2e - ttft);
// system throughput = output tokens / (first start -> last end). Load points send N requests at once.
//
// Usage: npm run bench:sim-fidelity [-- --only A-load] [--quick] [--no-steady]
//   --quick      skip the points that take more than ~30 s each (256K single, 8K x 125, 96K x 6, ...)
//   --no-steady  skip the steady-state TTFT of the load points (three requests per user each)
//   --only TEXT  run only the points whose label contains TEXT
//   --json FILE  also write the rows as JSON

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTokensPerSecond } from '../lib/request-figures';
import { parsePrometheusText, readServerSnapshot } from '../lib/prometheus';
import { findProfile, type Profile } from '../sim/profiles';
import { fetchGroundTruth, startSimChild } from '../sim/child';
import { mean } from '../sim/virtual-run';
import {
  identicalSequences, maxSafeQueue, POINTS, predictFromBatch, STEADY_REQUESTS_PER_USER, steadyModel, virtualBurst,
  type Point, type Target,
} from './fidelity-points';
import { type Row, metricName, fmt, renderTable, renderBracket, renderVerdict } from './sim-fidelity-table';
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

interface Measured {
  readonly ttftMs: number;
  readonly e2eMs: number;
  readonly outputTokens: number;
  /** Null for a one-token answer (lib/request-figures.ts). */
  readonly decodeTps: number | null;
  readonly startMs: number;
  readonly endMs: number;
  readonly itlMs: number[];
}

/** Streams one chat completion and measures it from the client side. */
function streamChat(base: string, model: string, content: string, maxTokens: number): Promise<Measured> {
  const payload = JSON.stringify({
    model, messages: [{ role: 'user', content }], max_tokens: maxTokens, ignore_eos: true, stream: true,
    stream_options: { include_usage: true },
  });
  const startMs = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}/v1/chat/completions`,
      {
        method: 'POST', agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => reject(new Error(`HTTP ${res.statusCode}: ${body}`)));
          return;
        }
        res.setEncoding('utf8');
        let buf = '';
        let first = -1;
        let last = -1;
        let tokens = 0;
        let usageTokens = -1;
        const itl: number[] = [];
        res.on('data', (s: string) => {
          const now = performance.now();
          buf += s;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
            const j = JSON.parse(line.slice(6)) as {
              choices: { delta?: { content?: string } }[]; usage?: { completion_tokens: number } | null;
            };
            if (j.usage) usageTokens = j.usage.completion_tokens;
            const content = j.choices[0]?.delta?.content;
            if (content) {
              if (first < 0) first = now;
              else itl.push(now - last);
              last = now;
              tokens++;
            }
          }
        });
        res.on('end', () => {
          const endMs = performance.now();
          const n = usageTokens >= 0 ? usageTokens : tokens;
          const ttftMs = first - startMs;
          const e2eMs = endMs - startMs;
          resolve({
            ttftMs, e2eMs, outputTokens: n, decodeTps: decodeTokensPerSecond(e2eMs, ttftMs, n), startMs, endMs,
            itlMs: itl,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * A lighter client for the fixed-timing capacity check: counts content chunks by their text pattern
 * instead of parsing JSON, so the client (sharing the machine's two cores) takes less CPU from the server.
 */
function streamChatLight(
  base: string, model: string, content: string, maxTokens: number,
): Promise<{ tokens: number; itlMs: number[] }> {
  const payload = JSON.stringify({
    model, messages: [{ role: 'user', content }], max_tokens: maxTokens, ignore_eos: true, stream: true,
  });
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    const req = httpRequest(`${base}/v1/chat/completions`, { method: 'POST', agent, headers }, (res) => {
      res.setEncoding('utf8');
      let tokens = 0;
      let last = -1;
      const itlMs: number[] = [];
      res.on('data', (s: string) => {
        const now = performance.now();
        let i = -1;
        let n = 0;
        while ((i = s.indexOf('"delta":{"content":"', i + 1)) >= 0) n++;
        if (n === 0) return;
        if (last >= 0) itlMs.push((now - last) / n);
        last = now;
        tokens += n;
      });
      res.on('end', () => resolve({ tokens, itlMs }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * Prompts of exactly `tokens` chat tokens that differ only in their first line (no prefix caching to hide
 * prefill), built from one-token words and trimmed with the server's /tokenize (which also warms its cache).
 */
async function makePrompts(base: string, model: string, tokens: number, count: number): Promise<string[]> {
  const firstLine = (i: number) => `Request ${String(i).padStart(4, '0')} of this cell, answer at length.`;
  const words = ['the', 'of', 'and', 'time', 'people', 'water', 'system', 'number'];
  const body = (n: number) => {
    let s = 'Document follows.';
    for (let i = 0; i < n; i++) s += ' ' + words[(i * 7) % words.length];
    return s;
  };
  const countOf = async (content: string) =>
    ((await postJson(`${base}/tokenize`, { model, messages: [{ role: 'user', content }] })) as { count: number }).count;
  let n = tokens;
  const overhead = (await countOf(`${firstLine(0)}\n${body(0)}`)) - 0;
  n = tokens - overhead;
  if (n < 0) throw new Error(`prompt of ${tokens} tokens is shorter than its template`);
  const got = await countOf(`${firstLine(0)}\n${body(n)}`);
  if (got !== tokens) throw new Error(`prompt builder: wanted ${tokens} tokens, got ${got}`);
  const rest = body(n);
  return Array.from({ length: count }, (_, i) => `${firstLine(i + 1)}\n${rest}`);
}

async function scrapePower(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return readServerSnapshot(parsePrometheusText(text)).powerWatts ?? 0;
}

/** Mean TTFT (s) of N closed-loop users sending requests back to back, each user's first request left out. */
async function steadyTtftSeconds(base: string, modelId: string, p: Point): Promise<number> {
  const prompts = await makePrompts(base, modelId, p.context, p.concurrency * STEADY_REQUESTS_PER_USER);
  const measured: number[] = [];
  await Promise.all(
    Array.from({ length: p.concurrency }, async (_, user) => {
      for (let k = 0; k < STEADY_REQUESTS_PER_USER; k++) {
        const r = await streamChat(base, modelId, prompts[user * STEADY_REQUESTS_PER_USER + k]!, p.output);
        if (k > 0) measured.push(r.ttftMs);
      }
    }),
  );
  return mean(measured) / 1000;
}

async function runPoint(base: string, modelId: string, profile: Profile, p: Point, steady: boolean): Promise<Row[]> {
  const rowOf = (t: Target, model: number | null, measured: number | null, bracket?: Row['steady']): Row => {
    const errorPct = (((measured ?? model ?? NaN) - t.published) / t.published) * 100;
    const row: Row = {
      label: p.label, metric: metricName(t.kind), kind: t.kind, published: t.published, model, measured, errorPct,
      profile: p.profile, cls: p.cls, bracketOnly: t.bracketOnly === true,
      note: [p.note, t.note].filter(Boolean).join('; '),
    };
    return bracket ? { ...row, steady: bracket } : row;
  };
  // Max safe queue depth: a bisection over burst sizes, in virtual time only (dozens of bursts over HTTP).
  if (p.targets.every((t) => t.kind === 'max_queue'))
    return p.targets.map((t) => rowOf(t, maxSafeQueue(profile, p, p.ttftLimitS ?? 3), null));
  const rounds = p.rounds ?? 1;
  // A shared-prompt point sends one prompt N times (B's published runs did), else each request its own.
  const prompts = p.sharedPrompt
    ? new Array<string>(p.concurrency * rounds).fill((await makePrompts(base, modelId, p.context, 1))[0]!)
    : await makePrompts(base, modelId, p.context, p.concurrency * rounds);
  const power: number[] = [];
  const poll = p.targets.some((t) => t.kind === 'power_w' || t.kind === 'mean_power_w')
    ? setInterval(() => {
        scrapePower(base).then((w) => power.push(w), () => undefined);
      }, 500)
    : null;
  const results: Measured[] = [];
  let wallMs = 0;
  for (let r = 0; r < rounds; r++) {
    const round = await Promise.all(
      prompts.slice(r * p.concurrency, (r + 1) * p.concurrency).map((c) => streamChat(base, modelId, c, p.output)),
    );
    wallMs += Math.max(...round.map((x) => x.endMs)) - Math.min(...round.map((x) => x.startMs));
    results.push(...round);
  }
  if (poll) clearInterval(poll);
  const total = results.reduce((s, r) => s + r.outputTokens, 0);
  const virtual = virtualBurst(profile, p);
  const hasBracket =
    steady && p.cls === 'load' && !p.sharedPrompt && p.targets.some((t) => t.kind === 'ttft_s' && t.bracketOnly);
  const bracket = hasBracket
    ? {
        measured: await steadyTtftSeconds(base, modelId, p),
        model: steadyModel(profile, p, 'ttft_s', mean(virtual.requests.map((r) => r.e2eMs))),
      }
    : undefined;
  return p.targets.map((t) => {
    let measured: number;
    switch (t.kind) {
      case 'ttft_s':
        measured = mean(results.map((r) => r.ttftMs)) / 1000;
        break;
      case 'decode_tps':
        measured = mean(results.flatMap((r) => r.decodeTps ?? []));
        break;
      case 'system_tps':
        measured = (total * 1000) / wallMs;
        break;
      case 'users_x_decode_tps':
        measured = p.concurrency * mean(results.flatMap((r) => r.decodeTps ?? []));
        break;
      case 'e2e_ms':
        measured = mean(results.map((r) => r.e2eMs));
        break;
      case 'itl_ms':
        measured = mean(results.flatMap((r) => r.itlMs));
        break;
      case 'power_w':
        measured = Math.max(0, ...power);
        break;
      case 'mean_power_w':
        measured = mean(power);
        break;
      case 'max_queue':
        throw new Error(`${p.label}: max_queue cannot share a point with other figures`);
    }
    return rowOf(
      t, predictFromBatch(t.kind, virtual), measured, t.kind === 'ttft_s' && t.bracketOnly ? bracket : undefined,
    );
  });
}

/** Fixed-timing capacity: many streams at 100 tok/s, server lateness from the ground truth. */
async function fixedModeCapacity(streams: number, tokens: number): Promise<string> {
  const sim = await startSimChild([
    '--fixed-ttft-ms', '50', '--fixed-itl-ms', '10', '--ground-truth', '--tokenizer-workers', '1',
  ]);
  try {
    const model = findProfile('A')!.model;
    const c0 = processCpuMs(sim.child.pid!);
    const t0 = performance.now();
    const results = await Promise.all(
      Array.from({ length: streams }, (_, i) => streamChatLight(sim.base, model, `stream ${i}`, tokens)),
    );
    const wall = performance.now() - t0;
    const serverCpuMs = processCpuMs(sim.child.pid!) - c0;
    const gt = { records: await fetchGroundTruth(sim.base) };
    const lateness: number[] = [];
    const steady: number[] = [];
    for (const r of gt.records) {
      r.tokenEpochMs.forEach((t, k) => {
        const late = t - (r.arrivalEpochMs + 50 + k * 10);
        lateness.push(late);
        if (k >= tokens / 2) steady.push(late);
      });
    }
    lateness.sort((a, b) => a - b);
    steady.sort((a, b) => a - b);
    const q = (p: number, xs = lateness) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
    const itl = results.flatMap((r) => r.itlMs);
    const ok = results.filter((r) => r.tokens === tokens).length;
    return [
      `Fixed timing (TTFT 50 ms, ITL 10 ms): ${streams} concurrent streams x ${tokens} tokens ` +
      `(${(streams * 100).toLocaleString('en')} tokens/s), ${ok}/${streams} complete, ` +
      `wall ${(wall / 1000).toFixed(2)} s.`,
      `Server emission lateness vs the absolute schedule (ground truth), all tokens: p50 ${q(0.5).toFixed(2)} ms, ` +
      `p99 ${q(0.99).toFixed(2)} ms, max ${lateness.at(-1)!.toFixed(2)} ms; ` +
        `second half of each stream (after the arrival burst): p50 ${q(0.5, steady).toFixed(2)} ms, p99 ` +
        `${q(0.99, steady).toFixed(2)} ms, max ${steady.at(-1)!.toFixed(2)} ms.`,
      `Client-side ITL: mean ${mean(itl).toFixed(2)} ms. Simulator CPU: ` +
      `${Number.isFinite(serverCpuMs) ? `${((serverCpuMs / wall) * 100).toFixed(0)}% of one core` : 'n/a'}.`,
    ].join('\n');
  } finally {
    await sim.stop();
  }
}

/** CPU time (user + system) of a process in ms, from /proc (Linux); NaN elsewhere. */
function processCpuMs(pid: number): number {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')':
    // state is field 3, utime 14, stime 15.
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks at 100 Hz
  } catch {
    return NaN;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  const onlyIdx = argv.indexOf('--only');
  const only = onlyIdx >= 0 ? argv[onlyIdx + 1] : undefined;
  const jsonIdx = argv.indexOf('--json');
  const jsonFile = jsonIdx >= 0 ? argv[jsonIdx + 1] : undefined;
  // The steady-state TTFT bracket costs three requests per user at each TTFT load point: --quick leaves it out.
  const steady = !argv.includes('--no-steady') && !quick;
  const pick = (ps: readonly Point[]) =>
    ps.filter(
      (p) =>
        (!quick || !p.slow) && (only === undefined || p.label.includes(only) || `${p.profile}-${p.cls}`.includes(only)),
    );
  const t0 = performance.now();
  const rows: Row[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'sim-fidelity-'));
  for (const [letter, all] of Object.entries(POINTS)) {
    const points = pick(all);
    const builtIn = findProfile(letter)!;
    // Unique prompts run with the prefix cache off, as the published runs had no prompt caching; shared-prompt
    // points (one prompt sent N times) with the cache on and identical routing, as their published runs imply.
    for (const shared of [false, true]) {
      const group = points.filter((p) => (p.sharedPrompt === true) === shared);
      if (group.length === 0) continue;
      const profile = shared ? { ...identicalSequences(builtIn), name: `${builtIn.name}-identical` } : builtIn;
      let args = ['--profile', builtIn.name, '--no-prefix-cache'];
      if (shared) {
        const file = join(tmp, `${letter}-identical.json`);
        writeFileSync(file, JSON.stringify({ base: builtIn.name, name: profile.name, letter, hardware: { rho: 1 } }));
        args = ['--profile', file];
      }
      const sim = await startSimChild(args);
      try {
        // Warm-up (JIT, connections, tokenizer): real benchmarks discard their first requests too.
        const warm = await makePrompts(sim.base, profile.model, 512, 3);
        for (const c of warm) await streamChat(sim.base, profile.model, c, 8);
        for (const p of group) {
          const s = performance.now();
          const r = await runPoint(sim.base, profile.model, profile, p, steady);
          rows.push(...r);
          const shown = r.map(
            (x) =>
              `${x.metric} ${x.measured === null ? 'n/a' : fmt(x.measured, x.kind)} (published ` +
              `${fmt(x.published, x.kind)}, ${x.errorPct.toFixed(1)}%)`,
          );
          process.stderr.write(`${p.label}: ${shown.join('; ')} [${((performance.now() - s) / 1000).toFixed(1)} s]\n`);
        }
      } finally {
        await sim.stop();
      }
    }
  }
  rmSync(tmp, { recursive: true, force: true });
  let fixed = '';
  if (only === undefined || 'fixed'.includes(only)) fixed = await fixedModeCapacity(512, 200);
  const bracket = renderBracket(rows);
  process.stdout.write(
    `${renderTable(rows)}\n\n${renderVerdict(rows)}\n\n${bracket ? `${bracket}\n\n` : ''}${fixed}\n\nTotal wall ` +
    `time ${((performance.now() - t0) / 1000).toFixed(0)} s.\n`,
  );
  if (jsonFile) writeFileSync(jsonFile, JSON.stringify({ rows, fixed }, null, 2));
  agent.destroy();
}

main().catch((e: unknown) => {
  process.stderr.write(`sim-fidelity: ${(e as Error).message}\n`);
  process.exitCode = 1;
});
