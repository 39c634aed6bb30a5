// The measured grid cells a fit compares the model with, read from a run folder's sweep part. Runs in Node.

import { UserError } from '../lib/exit-codes';
import { loadRun } from '../report/load-run';
import { readPartSamples } from '../report/split-inputs';
import type { CellAccumulator } from '../analysis/cell-accumulator';
import type { CellShape } from './virtual-cell';
import { median } from '../lib/percentile';

/** One measured cell: its shape as sent and each request's TTFT and time per output token, ms. */
export interface MeasuredCell extends CellShape {
  readonly id: string;
  readonly ttftMs: Float64Array;
  readonly tpotMs: Float64Array;
}

/** What a fit reads from a run: its grid cells, and what the run says of the server. */
export interface FitInput {
  readonly dir: string;
  readonly cells: MeasuredCell[];
  /** The served model's id, and its context window when the server stated one. */
  readonly model: string | null;
  readonly contextWindow: number | null;
}

/** Requests of a cell needed for its medians to count in the fit. */
const MIN_REQUESTS = 2;

/**
 * The sweep part's cells with their measured requests. The prompt length is what the server counted (the mean of
 * the requests' usage), not the plan's nominal context: the chat template and a window that shortened prompts move it.
 */
export async function readFitInput(folder: string): Promise<FitInput> {
  const run = loadRun(folder);
  const part = run.parts.find((p) => p.plan.script === 'sweep');
  if (!part) {
    throw new UserError(`${folder} has no sweep part to fit to: measure one with npm run bench -- --plan fit`);
  }
  const samples = await readPartSamples(part);
  const cells: MeasuredCell[] = [];
  for (const planned of part.plan.cells) {
    const acc = samples.cells.get(planned.id);
    if (!acc || acc.okCount < MIN_REQUESTS || acc.trends.ttft.length < MIN_REQUESTS) continue;
    cells.push({
      id: planned.id,
      promptTokens: Math.round(acc.inputTokens / Math.max(1, acc.inputLengths.length)),
      outputTokens: planned.outputTokens,
      concurrency: planned.concurrency,
      rounds: planned.rounds + (planned.warmupRounds ?? 0),
      userStartMs: firstRoundStarts(acc, planned.concurrency),
      requestGapMs: laterRequestGapMs(acc, planned.concurrency),
      ttftMs: Float64Array.from(acc.trends.ttft.values()),
      tpotMs: Float64Array.from(acc.trends.tpot.values()),
    });
  }
  const single = new Set(cells.filter((c) => c.concurrency === 1).map((c) => c.promptTokens));
  if (cells.length < 4 || single.size < 2) {
    throw new UserError(
      `${folder}: ${cells.length} sweep cells with measured requests, ${single.size} prompt lengths at one user; ` +
        'a fit ' +
        'needs single requests at 2 or more prompt lengths and some concurrent cells (npm run bench -- --plan fit)',
    );
  }
  return { dir: run.dir, cells, model: run.run?.target.model ?? null, contextWindow: run.run?.contextWindow ?? null };
}

/**
 * When each user's first request started after the cell's first, ms: the n earliest request starts (each request's
 * end less its e2e). A user's second request waits for its first to end, seconds later, so the n earliest starts are
 * the first round's. What the fit must model: the client hands a burst on over tens to hundreds of ms (k6's dispatch,
 * the hand-off to the agent, the writes; docs/design/client-clock.md), and a model that sent it at one instant
 * batches the whole burst into the first prefill and overstates its TTFT, which the fit then pays for with a smaller
 * prefill cost per token.
 */
export function firstRoundStarts(acc: CellAccumulator, users: number): number[] {
  const starts = requestStarts(acc);
  if (starts.length === 0) return [];
  return starts.slice(0, users).map((s) => s - starts[0]!);
}

/**
 * The median time from a request's end to its user's next request's start, ms (0 for a cell of one round): the
 * client's turnaround, 5 to 100+ ms over HTTP (reading the last chunk, handing the record on, the next request's
 * start). The records do not name their user; each user's next request follows its last, so the k-th request after
 * the first round is paired with the k-th request to end.
 */
export function laterRequestGapMs(acc: CellAccumulator, users: number): number {
  const starts = requestStarts(acc).slice(users);
  const ends = [...acc.requestEnds.values()].sort((a, b) => a - b);
  const gaps = starts.map((s, k) => Math.max(0, s - ends[k]!)).filter(Number.isFinite);
  return gaps.length === 0 ? 0 : median(gaps);
}

/** Each request's start (its end less its e2e), earliest first. */
function requestStarts(acc: CellAccumulator): number[] {
  const e2e = [...acc.trends.e2e.values()];
  return [...acc.requestEnds.values()].map((end, i) => end - (e2e[i] ?? 0)).sort((a, b) => a - b);
}
