// run.json of a predicted run: the fields a measured run's has that the report reads, and the `predicted` record
// that marks it (report/inputs.ts reads it; the report's title, tables, report.json and capacity.csv show it). Pure.
// Runs in Node.

import type { Plan } from '../lib/plan';
import type { PredictedInfo } from '../report/predicted';

export type PredictedRecord = PredictedInfo;

export interface PredictedRunInput {
  readonly runId: string;
  readonly planLabel: string;
  readonly model: string;
  readonly startedAt: Date;
  readonly plans: readonly Plan[];
  /** Requests predicted per part. */
  readonly requests: Readonly<Record<string, number>>;
  readonly record: PredictedRecord;
  /** The command line as given, for run.json. */
  readonly command: readonly string[];
  /** The profile's window, and the contexts whose prompts were sent shorter to fit it with their output. */
  readonly contextWindow: number;
  readonly fittedPrompts: readonly { readonly contextTokens: number; readonly promptTokens: number }[];
}

/** run.json of a predicted run; its end is the start plus the virtual time the parts took. */
export function predictedRunInfo(r: PredictedRunInput) {
  const ended = new Date(r.startedAt.getTime() + r.record.virtualSeconds * 1000);
  return {
    schemaVersion: 1,
    runId: r.runId,
    engine: 'virtual',
    engineVersion: `the simulator's batcher in virtual time (profile ${r.record.profile})`,
    startedAt: r.startedAt.toISOString(),
    endedAt: ended.toISOString(),
    interrupted: false,
    target: {
      baseUrl: r.plans[0]?.target.baseUrl ?? '', model: r.model, simulated: true, simProfile: r.record.profile,
    },
    tokenizer: 'none (predicted: prompts are token counts)',
    contextWindow: r.contextWindow,
    fittedPrompts: r.fittedPrompts,
    plan: r.planLabel,
    command: r.command,
    parts: r.plans.map((p) => p.script),
    requests: Object.fromEntries(
      Object.entries(r.requests).map(([part, n]) => [part, { planned: n, succeeded: n, failed: 0, cut: 0 }]),
    ),
    predicted: r.record,
  };
}
