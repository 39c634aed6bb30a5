// End to end: the agentic script replaying recorded agent sessions (the synthetic Mooncake and OpenTelemetry samples
// of examples/traces) on a stock k6 with the measuring agent, against the simulator's own record: every prompt and
// output of the recorded lengths exactly, each call after its recorded gap, the prefix cache near the trace's ideal,
// and the per-agent figures in the report. Runs in Node (vitest).

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentTrace } from '../../lib/agent-trace';
import { METRICS } from '../../lib/metrics';
import { buildBundles } from '../../orchestrator/bundles';
import { generateReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { startSim, type GroundTruthRecord } from '../../sim/server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { extraTags, readCsv, runScript, tempDir, type CsvRow } from './helpers';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const BLOCK = 16;

function plan(file: string): object {
  return {
    monitor: { enabled: false },
    agentic: { agents: [2], rampSeconds: 0, warmupSeconds: 0, holdSeconds: 7, trace: { file } },
  };
}

const values = (rows: readonly CsvRow[], name: string): number[] =>
  rows.filter((r) => r.metric_name === name && extraTags(r).cell !== undefined).map((r) => Number(r.metric_value));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

// The Mooncake sample on the Messages API too: a replay's calls are user messages, in any API of messages.
describe.each([
  ['agent-mooncake.jsonl', 'chat'], ['agent-otel.jsonl', 'chat'], ['agent-mooncake.jsonl', 'messages'],
] as const)('k6 run dist/agentic.js replaying %s on %s', (name, api) => {
  const file = path.resolve('examples/traces', name);
  const trace = loadAgentTrace(readFileSync(file, 'utf8'), { file, format: null, skipBadRows: false });
  let sim: Awaited<ReturnType<typeof startSim>>;
  let run: Awaited<ReturnType<typeof runScript>>;
  let rows: CsvRow[];
  let truth: GroundTruthRecord[];
  beforeAll(async () => {
    await buildBundles();
    sim = await startSim({ port: 0, tokenizerWorkers: 1, groundTruth: true });
    const prompts = path.join(tempDir('agentic-trace-prompts'), 'prompts.json');
    writeFileSync(prompts, JSON.stringify(await preparePrompts({
      model: MODEL, api, contexts: [], tokenizer: 'qwen3', blockVocabulary: true,
    })));
    run = await runScript('agentic', plan(file), { BASE_URL: sim.url, MODEL, PROMPTS: prompts, API: api });
    rows = readCsv(path.join(run.dir, 'samples.csv')).rows;
    truth = sim.groundTruth().filter((t) => t.outcome === 'completed' && t.endpoint === api);
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('sends every call with the recorded prompt and output lengths exactly, as the server counted them', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    const recorded = new Set(trace.sessions.flatMap((s) => s.calls.map((c) => `${c.inputTokens}/${c.outputTokens}`)));
    expect(truth.length).toBeGreaterThanOrEqual(6);
    for (const t of truth) expect(recorded.has(`${t.promptTokens}/${t.completionTokens}`), t.requestId).toBe(true);
  });

  it('waits each call\'s recorded gap after the answer before it, on the server\'s clock', () => {
    const once = (tokens: number) => truth.filter((t) => t.promptTokens === tokens);
    let pairs = 0;
    for (const s of trace.sessions)
      for (let k = 1; k < s.calls.length; k++) {
        const [before, after] = [once(s.calls[k - 1]!.inputTokens), once(s.calls[k]!.inputTokens)];
        if (before.length !== 1 || after.length !== 1) continue;
        // The client reads the answer after the server wrote it, then waits the gap: never sooner on the server.
        expect(after[0]!.arrivalEpochMs - before[0]!.endEpochMs!).toBeGreaterThanOrEqual(s.calls[k]!.gapMs - 1);
        pairs++;
      }
    expect(pairs).toBeGreaterThanOrEqual(3);
  });

  it('shares prompt blocks as the trace says: the server caches near the trace\'s ideal', () => {
    const ideal = values(rows, METRICS.idealCachedTokens.name);
    const cached = values(rows, METRICS.cachedTokens.name);
    expect(ideal.length).toBe(cached.length);
    // Whole 16-token blocks, less where an agent's first calls ran beside the session the recorded order puts first.
    expect(sum(cached)).toBeLessThanOrEqual(sum(ideal) + BLOCK * ideal.length);
    expect(sum(cached)).toBeGreaterThan(0.5 * sum(ideal));
  });

  it('reports the step in agents with its per-agent figures and turns', async () => {
    const { report } = await generateReport(run.dir, {
      ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null,
    });
    const step = report.agentic!.steps[0]!;
    expect(step.agents).toBe(2);
    expect(step.stepTime!.p50).toBeGreaterThan(0);
    expect(step.ttftByTurn.map((t) => t.group)).toContain('2');
    const md = readFileSync(path.join(run.dir, 'report.md'), 'utf8');
    expect(md).toContain('## Agentic Workloads');
    expect(md).toContain(`replays recorded sessions of the ${trace.summary.format} trace ${name}`);
  });
});
