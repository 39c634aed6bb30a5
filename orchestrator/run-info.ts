// run.json: what a bench run was (engine, target, plan, command) and how it went (parts, exit codes, requests,
// where the time went), rewritten as the run goes so an interrupted run still says what it measured. Runs in Node.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiStyle } from '../lib/plan';
import type { PromptSet } from '../lib/prompt-set';
import { redactSecret } from '../lib/request';
import type { TimeSpent } from './driven-results';
import type { Engine } from './engine';
import { requestCounts } from './progress';
import type { Target } from './target';

/** The bench options run.json states. */
export interface RunInfoOptions {
  readonly runId: string;
  readonly apiKey: string | null;
  readonly api: ApiStyle;
  readonly planLabel: string;
}

/** run.json as the bench writes it while the run goes (engine, target, parts so far, their exit codes and requests). */
export function newRunInfo(
  options: RunInfoOptions,
  run: {
    startedAt: string; engine: Engine; target: Target; model: string; prompts: PromptSet; contextWindow: number | null;
    /** The measuring agents' scheduling priority (orchestrator/agent-priority.ts). */
    agentPriority: 'normal' | 'realtime';
  },
) {
  const { target, engine, prompts } = run;
  const redact = (arg: string): string => (options.apiKey ? redactSecret(arg, options.apiKey) : arg);
  return {
    schemaVersion: 1,
    runId: options.runId,
    engine: 'k6',
    engineVersion: engine.version,
    engineSource: engine.source,
    transport: 'agent',
    agentPriority: run.agentPriority,
    startedAt: run.startedAt,
    endedAt: null as string | null,
    interrupted: false,
    target: {
      baseUrl: target.baseUrl,
      model: run.model,
      simulated: target.sim !== null,
      simProfile: target.sim ? target.sim.profile.name : null,
      // The simulator's step-time noise seed (--sim-noise), so a noisy run can be repeated; null without noise.
      simNoiseSeed: target.sim?.child.noiseSeed ?? null,
      api: options.api,
      server: target.server ? { name: target.server.name, ...target.server.settings } : null,
    },
    tokenizer: prompts.tokenizer,
    promptsExact: prompts.exact,
    // The server's window (max_model_len), null when it states none; contexts sent shorter to fit it.
    contextWindow: run.contextWindow,
    fittedPrompts: prompts.prompts.flatMap((p) =>
      p.promptTokens !== undefined ? [{ contextTokens: p.contextTokens, promptTokens: p.promptTokens }] : []),
    plan: options.planLabel,
    command: ['npm', 'run', 'bench', '--', ...process.argv.slice(2).map(redact)],
    parts: [] as string[],
    exitCodes: {} as Record<string, number>,
    /** Per part, from the CSV as it grew: cut = requests of started cells that never ended. */
    requests: {} as Record<string, ReturnType<typeof requestCounts>>,
    /** Per part, the machine's longest stall under the measuring agents while it ran, ms (agent/stall.go). */
    stallsMs: {} as Record<string, number>,
    /** Where the parts' time went: wall time and the time with at least one request running. */
    time: null as null | {
      partsWallSeconds: number;
      requestsRunningSeconds: number;
      parts: { part: string; wallSeconds: number; requestsRunningSeconds: number }[];
    },
  };
}

export type RunInfoRecord = ReturnType<typeof newRunInfo>;

export function writeRunInfo(runDir: string, runInfo: RunInfoRecord): void {
  writeFileSync(path.join(runDir, 'run.json'), JSON.stringify(runInfo, null, 2));
}

/** The end of the run in run.json: when, whether interrupted, and where the time went (seconds, to the millisecond). */
export function finishRunInfo(runInfo: RunInfoRecord, interrupted: boolean, time: TimeSpent): void {
  const seconds = (ms: number): number => Math.round(ms) / 1000;
  runInfo.interrupted = interrupted;
  runInfo.endedAt = new Date().toISOString();
  runInfo.time = {
    partsWallSeconds: seconds(time.wallMs),
    requestsRunningSeconds: seconds(time.runningMs),
    parts: time.parts.map((part) => ({
      part: part.part,
      wallSeconds: seconds(part.wallMs),
      requestsRunningSeconds: seconds(part.runningMs),
    })),
  };
}
