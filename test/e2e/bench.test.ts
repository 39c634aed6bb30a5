// End to end: `npm run bench` (scripts/bench.ts) as a user runs it. Runs in Node (vitest).
// Built-in simulator, run folder, report, Ctrl-C, API key hygiene, bad input.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { startSim } from '../../sim/server';
import { readCsv, readJson, ROOT, runBenchCli, tempDir, testEngine, writePlan } from './helpers';

/** Starts the bench CLI; `onStart` may signal it while it runs. */
const bench = runBenchCli;


/** Every file below a folder, recursively. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesBelow(p) : [p];
  });
}

/**
 * The name tag of k6's http_req_* samples of its calls to the agent (lib/k6/llm.ts AGENT_CALL_NAME; that module runs in
 * k6 only).
 */
const AGENT_CALL_NAME = 'llm-agent';

const TINY = { sweep: { contexts: [512], concurrencies: [1, 2], rounds: 1, outputTokens: 16 } };

describe('npm run bench against the built-in simulator: the run folder, the report and step-time noise', () => {
  it('runs the plan on a stock k6 with the measuring agent and writes the run folder and the report', async () => {
    const dir = tempDir('bench');
    const r = await bench(['--plan', writePlan(dir, TINY), '--scripts', 'sweep', '--results', dir, '--run-id', 'tiny']);
    expect(r.exitCode, r.stderr).toBe(0);
    const runDir = path.join(dir, 'tiny');
    expect(r.stdout).toContain(`results: ${runDir}`);
    // The k6 the bench finds is the one the tests find (K6_BIN, PATH, the cached upstream build), named as found.
    const engine = testEngine();
    expect(r.stderr).toContain(`engine: ${engine.version} (${engine.source}: ${engine.command[0]!})`);
    expect(r.stderr).toMatch(/simulator .* listening at http:\/\/127\.0\.0\.1:\d+\/v1/);
    // The tests' benches run the agent at LLM_AGENT_PRIORITY=auto (test/e2e/helpers.ts): the line says which it got.
    const agent = /measuring agent \(own process(, real-time priority)?\) listening at (http:\/\/127\.0\.0\.1:\d+)/
      .exec(r.stderr);
    expect(agent, r.stderr).not.toBeNull();
    const run = readJson<{
      engine: string; transport: string; agentPriority: string; target: { simulated: boolean }; parts: string[];
      interrupted: boolean;
      promptsExact: boolean;
    }>(path.join(runDir, 'run.json'));
    expect(run).toMatchObject({
      engine: 'k6', engineVersion: engine.version, engineSource: engine.source, transport: 'agent',
      agentPriority: agent![1] ? 'realtime' : 'normal', target: { simulated: true },
      parts: ['sweep'], interrupted: false, promptsExact: true,
      requests: { sweep: { planned: 3, succeeded: 3, failed: 0, cut: 0 } },
    });
    // Every request went through the agent: k6's own http_reqs are its calls to /stream, one per request.
    const calls = readCsv(path.join(runDir, 'sweep', 'samples.csv')).rows.filter(
      (row) => row.metric_name === 'http_reqs' && row.name === AGENT_CALL_NAME,
    );
    // (k6 writes the name tag in the url column of a request that has one.)
    expect(calls.map((row) => [row.method, row.status, row.url])).toEqual(
      Array(3).fill(['POST', '200', AGENT_CALL_NAME]),
    );
    for (const f of [
      'sweep/summary.json', 'sweep/plan.json', 'sweep/samples.csv', 'sweep/summary-export.json', 'report.md',
      'report.html', 'report.json', 'cells.csv',
    ]) {
      expect(existsSync(path.join(runDir, f)), f).toBe(true);
    }
    const summary = readJson<{ metrics: Record<string, { values: Record<string, number> }> }>(
      path.join(runDir, 'sweep', 'summary.json'),
    );
    expect(summary.metrics[METRICS.requestOk.name]!.values).toMatchObject({ passes: 3, fails: 0 });
    // Exact prompt lengths reach the server: usage.prompt_tokens equals the requested context.
    expect(summary.metrics[METRICS.inputTokens.name]!.values.count).toBe(3 * 512);
    expect(readFileSync(path.join(runDir, 'report.md'), 'utf8')).toContain('## Key Findings');
  }, 180_000);

  it('runs the simulator with step-time noise for --sim-noise-seed, and keeps the seed in run.json', async () => {
    const dir = tempDir('bench-noise');
    const args = ['--plan', writePlan(dir, TINY), '--scripts', 'sweep', '--results', dir, '--run-id', 'noise'];
    const r = await bench([...args, '--sim-noise-seed', '7']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/step-time noise with seed 7/);
    const run = readJson<{ target: { simNoiseSeed: number | null } }>(path.join(dir, 'noise', 'run.json'));
    expect(run.target.simNoiseSeed).toBe(7);
  }, 180_000);
});

describe('npm run bench against the built-in simulator: an overflowing context, and Ctrl-C', () => {
  it("fits a context that would overflow the server's window, and the report says so", async () => {
    const dir = tempDir('bench-window');
    const profile = path.join(dir, 'small-window.json');
    writeFileSync(profile, JSON.stringify({ base: 'A', maxModelLen: 2048 }));
    const plan = { sweep: { contexts: [512, 2048], concurrencies: [1], rounds: 1, outputTokens: 16 } };
    const args = ['--plan', writePlan(dir, plan), '--scripts', 'sweep', '--results', dir, '--run-id', 'window'];
    const r = await bench([...args, '--profile', profile]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("context 2048: prompts of 2032 tokens, to fit the server's 2048-token window");
    const run = readJson<object>(path.join(dir, 'window', 'run.json'));
    expect(run).toMatchObject({
      contextWindow: 2048, fittedPrompts: [{ contextTokens: 2048, promptTokens: 2032 }],
      requests: { sweep: { succeeded: 2, failed: 0 } },
    });
    const summary = readJson<{ metrics: Record<string, { values: Record<string, number> }> }>(
      path.join(dir, 'window', 'sweep', 'summary.json'),
    );
    expect(summary.metrics[METRICS.inputTokens.name]!.values.count).toBe(512 + 2032);
    expect(readFileSync(path.join(dir, 'window', 'report.md'), 'utf8')).toContain(
      "the server's 2,048-token window holds the prompt and the output asked, so 2K cells sent 2,032-token prompts",
    );
  }, 180_000);

  it('keeps what it measured when interrupted with Ctrl-C (on k6)', async () => {
    const dir = tempDir('bench-int');
    const plan = { sweep: { contexts: [512], concurrencies: [1, 2, 4], rounds: 4, outputTokens: 200 } };
    const csv = path.join(dir, 'int', 'sweep', 'samples.csv');
    const args = ['--plan', writePlan(dir, plan), '--scripts', 'sweep', '--results', dir, '--run-id', 'int'];
    const r = await bench(args, {}, (pid) => {
      // Interrupt once the first request has been measured.
      const poll = setInterval(() => {
        if (existsSync(csv) && readFileSync(csv, 'utf8').includes(`\n${METRICS.requestOk.name},`)) {
          clearInterval(poll);
          process.kill(pid, 'SIGINT');
        }
      }, 100);
    });
    expect(r.exitCode).toBe(105);
    expect(r.stderr).toMatch(/interrupted; kept \d+ measured requests/);
    const runDir = path.join(dir, 'int');
    const run = readJson<{
      interrupted: boolean; requests: { sweep: { planned: number; succeeded: number; failed: number; cut: number } };
    }>(path.join(runDir, 'run.json'));
    expect(run.interrupted).toBe(true);
    // The request in flight at Ctrl-C is cut: neither measured nor failed.
    expect(run.requests.sweep.cut).toBeGreaterThan(0);
    expect(run.requests.sweep.succeeded + run.requests.sweep.failed + run.requests.sweep.cut).toBeLessThanOrEqual(
      run.requests.sweep.planned,
    );
    const summary = readJson<{ metrics: Record<string, { values: Record<string, number> }> }>(
      path.join(runDir, 'sweep', 'summary.json'),
    );
    expect(summary.metrics[METRICS.requestOk.name]!.values.passes).toBeGreaterThan(0);
    expect(existsSync(path.join(runDir, 'report.md'))).toBe(true);
  }, 180_000);
});

describe('npm run bench against a URL with an API key', () => {
  const KEY = 'sk-test-3f9c1d7e5b2a4c68';
  let sim: Awaited<ReturnType<typeof startSim>>;
  beforeAll(async () => {
    sim = await startSim({ port: 0, apiKey: KEY, fixed: { ttftMs: 20, itlMs: 5 }, groundTruth: true });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('authenticates every request and never writes the key anywhere', async () => {
    const dir = tempDir('bench-key');
    const r = await bench(
      ['--url', sim.url, '--plan', writePlan(dir, TINY), '--scripts', 'sweep', '--results', dir, '--run-id', 'key'],
      { LLM_API_KEY: KEY },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    // A target of unknown speed is probed first, and the slots follow. The probe times whole answers (1 token, 65,
    // 1 again) and takes the extra tokens over the extra time from the faster one-token answer: a client delay on
    // either moves it (308 and 459 tok/s on loaded CI machines against 200 served, before the second one-token
    // answer), so it is judged against the 65-token answer's own served speed, within the factor the slots' safety
    // factor (2) absorbs.
    const probe = /probe: prefill (\d+) tok\/s at 512 tokens, decode ([\d.]+) tok\/s/.exec(r.stderr);
    expect(probe, r.stderr).not.toBeNull();
    const answer = sim.groundTruth().find((t) => !t.stream && t.completionTokens === 65)!;
    const served = (64 * 1000) / (answer.tokenEpochMs[64]! - answer.tokenEpochMs[0]!);
    expect(Number(probe![2]) / served, `served ${served} tok/s`).toBeGreaterThan(0.5);
    expect(Number(probe![2]) / served, `served ${served} tok/s`).toBeLessThan(2);
    const runDir = path.join(dir, 'key');
    // The slots were sized from the probe's speeds: the part's resolved plan (the one k6 ran) holds them.
    const sweepPlan = readJson<{ schedule: { decodeTokensPerSecond: number } }>(
      path.join(runDir, 'sweep', 'plan.json'),
    );
    expect(sweepPlan.schedule.decodeTokensPerSecond).toBe(Number(probe![2]));
    const summary = readJson<{ metrics: Record<string, { values: Record<string, number> }> }>(
      path.join(runDir, 'sweep', 'summary.json'),
    );
    expect(summary.metrics[METRICS.requestOk.name]!.values).toMatchObject({ passes: 3, fails: 0 });
    expect(r.stdout + r.stderr).not.toContain(KEY);
    for (const file of filesBelow(runDir)) expect(readFileSync(file, 'utf8').includes(KEY), file).toBe(false);
  }, 180_000);

  it('records failed requests, not a crash, when the key is wrong', async () => {
    const dir = tempDir('bench-badkey');
    const r = await bench(
      [
        '--url', sim.url, '--model', 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', '--tokenizer', 'qwen3', '--plan',
        writePlan(dir, TINY), '--scripts', 'sweep', '--results', dir, '--run-id', 'bad',
      ],
      { LLM_API_KEY: 'wrong' },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /probe failed \(.*HTTP 401.*Invalid API key.*\); cell slots use the plan.s default speeds/,
    );
    const summary = readJson<{ metrics: Record<string, { values: Record<string, number> }> }>(
      path.join(dir, 'bad', 'sweep', 'summary.json'),
    );
    expect(summary.metrics[METRICS.requestOk.name]!.values).toMatchObject({ passes: 0, fails: 3 });
    // The server's own words, per cell and kind, at the end of the part.
    expect(r.stderr).toContain('failures, most frequent messages per cell and kind:');
    expect(r.stderr).toMatch(/sweep_c512_o16_n\d http_4xx x\d: Invalid API key\./);
    expect(summary.metrics[`${METRICS.errors.name}`]!.values.count).toBe(3);
  }, 180_000);
});

describe('npm run bench with k6 installed', () => {
  it('runs K6_BIN with the CSV, summary-export and tag arguments, the key only in its environment', async () => {
    const dir = tempDir('bench-k6');
    // A stand-in k6: answers `version` as a stock k6, records how it was called, then runs the real one.
    const log = path.join(dir, 'k6-calls.json');
    const fake = path.join(dir, 'k6');
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        'if [ "$1" = "version" ]; then printf "k6 v1.8.1 (stand-in)\n"; exit 0; fi',
        `node -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({ args: process.argv.slice(2), key: ` +
        `process.env.API_KEY || null }))' ${log} "$@"`,
        `exec ${testEngine().command[0]!} "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const r = await bench(
      ['--plan', writePlan(dir, TINY), '--scripts', 'sweep', '--results', dir, '--run-id', 'k6run', '--no-report'],
      { K6_BIN: fake, LLM_API_KEY: 'sk-k6-env-only' },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('engine: k6 v1.8.1 (stand-in) (K6_BIN: ');
    const call = readJson<{ args: string[]; key: string | null }>(log);
    const partDir = path.join(dir, 'k6run', 'sweep');
    expect(call.args[0]).toBe('run');
    expect(call.args).toContain(`csv=fileName=${path.join(partDir, 'samples.csv')},timeFormat=unix_milli`);
    expect(call.args).toContain('testid=k6run');
    expect(call.args.at(-1)).toBe(path.join(ROOT, 'dist', 'sweep.js'));
    expect(call.args.join(' ')).not.toContain('sk-k6-env-only');
    expect(call).toMatchObject({ key: 'sk-k6-env-only' });
    // The measuring agent's URL reaches k6 as an -e value, like the plan and the target.
    expect(call.args.join(' ')).toMatch(/-e LLM_AGENT=http:\/\/127\.0\.0\.1:\d+ /);
    expect(readJson<{ engine: string; engineVersion: string }>(path.join(dir, 'k6run', 'run.json'))).toMatchObject({
      engine: 'k6', engineVersion: 'k6 v1.8.1 (stand-in)', engineSource: 'K6_BIN', transport: 'agent',
    });
  }, 180_000);

  it('refuses a K6_BIN older than k6 1.0 in one line that says how to get one', async () => {
    const dir = tempDir('bench-k6-old');
    const old = path.join(dir, 'k6');
    writeFileSync(old, '#!/bin/sh\necho "k6 v0.54.0 (go1.23.1, linux/amd64)"\n', { mode: 0o755 });
    const r = await bench(['--plan', writePlan(dir, TINY), '--scripts', 'sweep', '--results', dir], { K6_BIN: old });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/K6_BIN k6 ".*" is v0\.54\.0; k6 >= 1\.0 is needed: install k6/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('refuses a K6_BIN that does not run, in one line', async () => {
    const dir = tempDir('bench-k6-broken');
    const broken = path.join(dir, 'k6');
    writeFileSync(broken, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const r = await bench(['--plan', writePlan(dir, TINY), '--scripts', 'sweep', '--results', dir], { K6_BIN: broken });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.trim().split('\n').at(-1)).toContain(`K6_BIN k6 "${broken}" does not run`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe('npm run bench with bad input', () => {
  it('names a plan file that does not exist, in one line, exit 3', async () => {
    const r = await bench(['--plan', '/nonexistent/plan.json']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--plan /nonexistent/plan.json');
  }, 60_000);

  it('rejects an unknown script name, exit 2', async () => {
    const r = await bench(['--scripts', 'sweep,soak']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('"soak" is not one of');
  }, 60_000);

  it('takes the former --generators as --runners, with a line that says so', async () => {
    const r = await bench(['--generators', '0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--generators is deprecated: it is now --runners');
    expect(r.stderr).toContain('--runners must be a whole number from 1 to 64, got "0"');
  }, 60_000);

  it('refuses an agent priority it does not know, from the flag or the environment, in one line, exit 2', async () => {
    const flag = await bench(['--agent-priority', 'high']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr.trim()).toBe('bench: --agent-priority must be one of normal, realtime, auto, got "high"');
    const env = await runBenchCli(['--plan', '/nonexistent/plan.json'], { LLM_AGENT_PRIORITY: 'fast' });
    expect(env.exitCode).toBe(2);
    expect(env.stderr.trim()).toBe('bench: LLM_AGENT_PRIORITY must be one of normal, realtime, auto, got "fast"');
  }, 60_000);

  it('names the bad field of an invalid plan', async () => {
    const dir = tempDir('bench-badplan');
    const r = await bench(['--plan', writePlan(dir, { sweep: { rounds: 0 } }), '--results', dir]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('sweep.rounds');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
