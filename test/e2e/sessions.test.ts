// End to end: the sessions script on a stock k6 with the measuring agent, against the simulator's performance model
// and prefix cache. Plain `k6 run dist/sessions.js` (turns, tags, exact lengths, cached tokens), and `npm run bench`'s
// search in active users beside the capacity search. Runs in Node (vitest).

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { cellMetricKey, readSummaryData } from '../../lib/summary-data';
import { buildBundles } from '../../orchestrator/bundles';
import { readPlanFile } from '../../report/inputs';
import { generateReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import type { ActiveUsersCapacity } from '../../analysis/active-users';
import { startSim } from '../../sim/server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import {
  extraTags, readCsv, readJson, runBenchCli, runScriptUnstalled, tempDir, writePlan, type CsvRow,
} from './helpers';
import { ladderDisplay } from '../../report/capacity-words';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
/**
 * 2K prompts, 32 tokens out: on the default profile per-user decode speed crosses 100 tok/s near 5 concurrent requests.
 */
const TINY = {
  id: 'tiny_chat', title: 'Tiny chat', contextTokens: 2048, outputTokens: 32,
  limits: [{ metric: 'decodeSpeed', operator: '>', value: 100 }],
};
const FIRST = 2048;
const GROWTH = 64;
const OUTPUT = 32;

/** Three users' conversations of three turns each, exponential think time, on the tiny chat use case. */
const SESSIONS_PLAN = {
  useCases: [TINY], monitor: { intervalSeconds: 0.5 },
  sessions: {
    users: { tiny_chat: [3] }, rampSeconds: 1, warmupSeconds: 1, holdSeconds: 4,
    models: {
      tiny_chat: {
        turns: 3, growthTokens: GROWTH, thinkTime: { distribution: 'exponential', meanSeconds: 0.2 },
      },
    },
  },
};

/** Prompts of FIRST tokens with GROWTH-token follow-ups, written to a file; resolves to its path. */
async function writeSessionPrompts(): Promise<string> {
  const prompts = path.join(tempDir('sessions-prompts'), 'prompts.json');
  writeFileSync(prompts, JSON.stringify(await preparePrompts({
    model: MODEL, api: 'chat', contexts: [FIRST], followUps: [GROWTH], tokenizer: 'qwen3',
  })));
  return prompts;
}

/** The llm_cached_tokens samples by their turn tag. */
function cachedTokensByTurn(rows: readonly CsvRow[]): Map<string, number[]> {
  const cachedByTurn = new Map<string, number[]>();
  for (const r of rows.filter((x) => x.metric_name === METRICS.cachedTokens.name)) {
    const turn = extraTags(r).turn!;
    cachedByTurn.set(turn, [...(cachedByTurn.get(turn) ?? []), Number(r.metric_value)]);
  }
  return cachedByTurn;
}

/** The report's Active Users section, its charts and its CSV, for the one step of SESSIONS_PLAN. */
function expectActiveUsersSection(runDir: string): void {
  const md = readFileSync(path.join(runDir, 'report.md'), 'utf8');
  expect(md).toMatch(/## Active Users\n/);
  expect(md).toMatch(
    /\| Tiny chat \| 3 turns, 2K → 2\.2K, 32 out \| exponential, mean 0\.2 s \| 3\+ \| \d\.\d \/ [123] \|/,
  );
  expect(md).toMatch(/### Tiny chat: Turns at 3 Active Users/);
  expect(md).toContain('charts/sessions_turns_tiny_chat.svg');
  // Warm-up turns ran among the measured ones: no two scrapes isolate them, so no server hit rate (issue 46).
  expect(md).toContain("(the server's own counters cannot be read over these turns alone)");
  expect(md).toMatch(/sessions_tiny_chat_n3: other requests \(warm-ups, .*\) ran between every pair of scrapes/);
  expect(existsSync(path.join(runDir, 'charts', 'sessions_users_tiny_chat.svg'))).toBe(true);
  expect(readFileSync(path.join(runDir, 'active-users.csv'), 'utf8')).toMatch(/^kind,id,title,turn,/);
}

/** The figures of the step at 3 users: requests in flight, and TTFT and cache hits by turn. */
function expectStepFigures(at: NonNullable<ActiveUsersCapacity['atCapacity']>): void {
  expect(at.users).toBe(3);
  expect(at.concurrentMean!).toBeGreaterThan(0);
  expect(at.concurrentMean!).toBeLessThanOrEqual(3);
  expect(at.concurrentP95!).toBeLessThanOrEqual(3);
  expect(at.turns.map((t) => t.turn)).toEqual(['1', '2', '3']);
  // Turn 1 is a new conversation; later turns find all but the new message cached.
  expect(at.turns[0]!.hitRate).toBe(0);
  for (const t of at.turns.slice(1)) expect(t.hitRate!, `turn ${t.turn}`).toBeGreaterThan(0.9);
  expect(at.serverHitRate).toBeNull();
}

/**
 * On a loaded machine the agent can fall a token gap behind (analysis/client-bound.ts): then the step is no
 * measurement of the server, and the report must say so rather than describe it.
 */
function expectClientBoundStep(a: ActiveUsersCapacity, runDir: string): void {
  expect(ladderDisplay(a.result)).toBe('undetermined: client-bound at 3');
  expect(a.atCapacity).toBeNull();
  expect(readFileSync(path.join(runDir, 'report.md'), 'utf8')).toContain(
    'The capacity is undetermined: client-bound at 3 active users: the client, not the server, set the pace',
  );
}

// A conversation goes as a list of messages on every conversation API: each must send the same history.
describe.each(['chat', 'responses', 'messages'])('k6 run dist/sessions.js, API=%s', (api) => {
  let sim: Awaited<ReturnType<typeof startSim>>;
  let run: Awaited<ReturnType<typeof runScriptUnstalled>>;
  let rows: CsvRow[];
  beforeAll(async () => {
    await buildBundles();
    sim = await startSim({ port: 0, tokenizerWorkers: 1 });
    const prompts = await writeSessionPrompts();
    run = await runScriptUnstalled('sessions', SESSIONS_PLAN, { BASE_URL: sim.url, MODEL, PROMPTS: prompts, API: api });
    rows = readCsv(path.join(run.dir, 'samples.csv')).rows;
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('exits 0, holds the step as planned and keeps its measured turns apart in the summary', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    const plan = readPlanFile(path.join(run.dir, 'plan.json'));
    expect(plan.cells.map((c) => [c.id, c.concurrency, c.maxDurationSeconds])).toEqual([
      ['sessions_tiny_chat_n3', 3, 6],
    ]);
    const summary = readSummaryData(readJson(path.join(run.dir, 'summary.json')), 'summary.json');
    const measured = summary.metrics[cellMetricKey(METRICS.ttft.name, plan.cells[0]!)]!.values.count!;
    expect(measured).toBeGreaterThan(3);
  });

  it("sends each turn the history, exactly first + (turn - 1) x (growth + output) tokens, " +
    "and finds the last turn cached", () => {
    const requests = rows.filter((r) => r.metric_name === METRICS.inputTokens.name);
    expect(requests.length).toBeGreaterThan(6);
    // One record's samples are stamped one by one (k6's metric.add), so they can straddle a millisecond: the
    // cached-token samples are matched to the requests by turn, where every request expects the same count.
    const cachedByTurn = cachedTokensByTurn(rows);
    const turns = new Map<string, number>();
    for (const r of requests) {
      const t = extraTags(r);
      const turn = Number(t.turn);
      turns.set(t.turn!, (turns.get(t.turn!) ?? 0) + 1);
      expect(Number(r.metric_value), `turn ${turn}`).toBe(FIRST + (turn - 1) * (GROWTH + OUTPUT));
      expect(['warmup', 'measured', 'transition']).toContain(t.phase);
      expect(['1', '2', '3+']).toContain(t.session);
    }
    expect([...turns.keys()].sort()).toEqual(['1', '2', '3']);
    // The previous turn's prompt and answer, but the answer's last token, in whole 16-token blocks.
    expect(cachedByTurn.get('1')).toEqual(Array<number>(turns.get('1')!).fill(0));
    for (const [turn, count] of turns) {
      if (turn === '1') continue;
      const input = FIRST + (Number(turn) - 1) * (GROWTH + OUTPUT);
      const expected = 16 * Math.floor((input - GROWTH - 1) / 16);
      expect(cachedByTurn.get(turn), `turn ${turn}`).toEqual(Array<number>(count).fill(expected));
    }
    expect(requests.some((r) => extraTags(r).phase === 'measured')).toBe(true);
  });

  it('reports the step in "Active Users": requests in flight, and TTFT and cache hits by turn', async () => {
    const { report } = await generateReport(run.dir, {
      ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null,
    });
    const [a] = report.activeUsers;
    expect(a!.useCase.id).toBe('tiny_chat');
    if (report.cells.find((c) => c.id === 'sessions_tiny_chat_n3')!.clientBound !== null) {
      expectClientBoundStep(a!, run.dir);
      return;
    }
    expectStepFigures(a!.atCapacity!);
    expectActiveUsersSection(run.dir);
  });

  it('samples the active users, never more than the step holds', () => {
    const users = rows.filter((r) => r.metric_name === METRICS.activeUsers.name).map((r) => Number(r.metric_value));
    expect(users.length).toBeGreaterThan(3);
    expect(Math.max(...users)).toBe(3);
    expect(Math.min(...users)).toBeGreaterThanOrEqual(1);
  });
});

describe('npm run bench -- --scripts capacity,sessions', () => {
  it('finds as many active users without think time as concurrent requests, and more with it', async () => {
    const thinking = { ...TINY, id: 'tiny_think', title: 'Tiny chat with pauses' };
    const search = { rounds: 2, minMeasuredSeconds: 1.5, maxUsers: 32 };
    const plan = {
      useCases: [TINY, thinking],
      capacity: { useCases: ['tiny_chat'], ...search },
      sessions: {
        ...search,
        models: {
          // One turn, no pause: every turn is the capacity script's request, so the two searches must agree.
          tiny_chat: { turns: 1, thinkTime: { distribution: 'constant', seconds: 0 } },
          tiny_think: { turns: 1, thinkTime: { distribution: 'exponential', meanSeconds: 0.4 } },
        },
      },
    };
    const dir = tempDir('sessions-bench');
    const r = await runBenchCli([
      '--plan', writePlan(dir, plan), '--scripts', 'capacity,sessions', '--results', dir, '--run-id', 's',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const found = (what: string, id: string): number => {
      const m = new RegExp(`${what} \\(steady state, warm-up excluded\\):\\n(?:  .*\\n)*?  ${id}: (\\d+) \\(`).exec(
        r.stderr,
      );
      expect(m, r.stderr).not.toBeNull();
      return Number(m![1]);
    };
    const concurrent = found('capacity search', 'tiny_chat');
    expect(Math.abs(found('active-user search', 'tiny_chat') - concurrent)).toBeLessThanOrEqual(1);
    expect(found('active-user search', 'tiny_think')).toBeGreaterThan(concurrent);
    // The report sets each beside the concurrent capacity: without pauses one user per slot, with them about
    // (k + 1) of them and never far beyond Little's law (one turn, nothing to cache).
    const report = readJson<{ activeUsers: ActiveUsersCapacity[] }>(path.join(dir, 's', 'report.json'));
    const [still, think] = report.activeUsers;
    expect(still!.concurrentCapacity).toBe(concurrent);
    expect(still!.atCapacity!.usersPerSlot!).toBeGreaterThan(0.9);
    expect(still!.atCapacity!.usersPerSlot!).toBeLessThan(1.2);
    expect(think!.thinkToRequest!).toBeGreaterThan(0.3);
    expect(think!.atCapacity!.usersPerSlot!).toBeGreaterThan(1.2);
    // tiny_think has tiny_chat's lengths and limits: its Little bound is (k + 1) x tiny_chat's concurrent capacity.
    expect(think!.result.estimate!).toBeLessThanOrEqual(1.25 * (think!.thinkToRequest! + 1) * concurrent + 1);
  }, 240_000);
});
