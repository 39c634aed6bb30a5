// The plan's time slots: each cell's start, slot and grace, sized from the expected speeds; and the cell ids' number
// formats. Runs in k6 and Node. Only sizes slots (and a bench-driven run needs none): never a measurement.

import { agenticSlot, type AgenticConfig } from './plan-agentic';
import { sessionSlot, type SessionsConfig } from './plan-sessions';
import type { Cell, ScheduleConfig } from './plan-types';

/** "1k", "32k", "1.5k" for token counts in cell ids and labels. */
export function formatTokens(tokens: number): string {
  if (tokens >= 1024 && tokens % 1024 === 0) return `${tokens / 1024}k`;
  if (tokens >= 1000) return `${Math.round(tokens / 100) / 10}k`.replace('.', '_');
  return String(tokens);
}

export type CellDraft = Omit<Cell, 'startSeconds' | 'maxDurationSeconds' | 'gracefulStopSeconds' | 'warmupRounds'> & {
  warmupRounds?: number;
};

/**
 * How per-user decode speed falls with concurrency N: speed(N) = speed(1) / N^0.4. Fitted to the
 * published Qwen3-Coder-30B-A3B / H200 points of docs/design/simulator-model.md, "Calibration targets"
 * (165 tok/s alone, 100 at 6 users, 25 at 75, 21 at 125).
 */
export const DECODE_SLOWDOWN_EXPONENT = 0.4;

/**
 * Estimated seconds for one request of a cell, from the expected single-request speeds: all N
 * prefills may run back to back (the worst case, for the last request), then decode at the
 * per-user speed of N concurrent users. Only sizes time slots; never used as a measurement.
 */
export function estimateRequestSeconds(
  draft: Pick<Cell, 'contextTokens' | 'outputTokens' | 'concurrency'> & { batch?: number }, s: ScheduleConfig,
): number {
  // An embed request's prompt is its whole batch (lib/plan-embed.ts).
  const prefill = (draft.contextTokens * (draft.batch ?? 1) * draft.concurrency) / s.prefillTokensPerSecond;
  const decode = draft.outputTokens / (s.decodeTokensPerSecond / Math.pow(draft.concurrency, DECODE_SLOWDOWN_EXPONENT));
  return prefill + decode;
}

/** Each cell's start, slot and grace, one after another, and the plan's total. */
export function scheduleCells(
  drafts: readonly CellDraft[], s: ScheduleConfig, sessions: SessionsConfig | null,
  agentic: AgenticConfig | null = null,
): { cells: Cell[]; totalSeconds: number } {
  let start = 0;
  const cells: Cell[] = [];
  const requestSeconds = (contextTokens: number, outputTokens: number, concurrency: number): number =>
    estimateRequestSeconds({ contextTokens, outputTokens, concurrency }, s);
  for (const d of drafts) {
    if (d.script === 'sessions' && sessions) {
      // A step of active users holds its timing, whatever its requests take (lib/plan-sessions.ts).
      const step = { ...d, script: 'sessions' as const, useCase: d.useCase!, profile: null };
      const slot = sessionSlot(step, sessions, requestSeconds, s.safetyFactor);
      cells.push({ ...d, warmupRounds: 0, startSeconds: start, ...slot });
      start += slot.maxDurationSeconds + slot.gracefulStopSeconds + s.gapSeconds;
      continue;
    }
    if (d.script === 'agentic' && agentic) {
      // A step of agents holds its timing too (lib/plan-agentic.ts).
      const slot = agenticSlot(agentic, requestSeconds, s.safetyFactor);
      cells.push({ ...d, warmupRounds: 0, startSeconds: start, ...slot });
      start += slot.maxDurationSeconds + slot.gracefulStopSeconds + s.gapSeconds;
      continue;
    }
    if (d.arrivals) {
      const slot = rateSlot(d, d.arrivals.durationSeconds, s);
      cells.push({ ...d, warmupRounds: 0, startSeconds: start, ...slot });
      start += slot.maxDurationSeconds + slot.gracefulStopSeconds + s.gapSeconds;
      continue;
    }
    const predicted = s.predictedCellSeconds?.[d.id];
    const perRequest = predicted !== undefined ? predicted / d.rounds : estimateRequestSeconds(d, s);
    const slot = s.cellSeconds ?? Math.max(s.minCellSeconds, Math.ceil(perRequest * d.rounds * s.safetyFactor));
    // In-flight requests may finish after the slot ends: for up to one more estimated request, or,
    // when a model predicted the cell, for the share of one request the safety factor allows.
    const graceful =
      predicted !== undefined
        ? Math.max(1, Math.ceil(perRequest * (s.safetyFactor - 1)) + 1)
        : Math.max(1, Math.ceil(perRequest * s.safetyFactor));
    const warmupRounds = d.warmupRounds ?? 0;
    cells.push({ ...d, warmupRounds, startSeconds: start, maxDurationSeconds: slot, gracefulStopSeconds: graceful });
    start += slot + graceful + s.gapSeconds;
  }
  return { cells, totalSeconds: Math.max(0, start - s.gapSeconds) };
}

/**
 * A rate cell's slot: its schedule's duration, then time for its last requests (one request alone, times the safety
 * factor), then a second's grace. Requests still queued then are cut, and the report counts them as failed: the
 * time a request may take is already in the slot, so k6's graceful stop need not add it again.
 */
function rateSlot(
  d: Pick<Cell, 'contextTokens' | 'outputTokens'>, durationSeconds: number, s: ScheduleConfig,
): Pick<Cell, 'maxDurationSeconds' | 'gracefulStopSeconds'> {
  const tail = Math.max(1, Math.ceil(estimateRequestSeconds({ ...d, concurrency: 1 }, s) * s.safetyFactor));
  return { maxDurationSeconds: durationSeconds + tail, gracefulStopSeconds: RATE_GRACE_SECONDS };
}

const RATE_GRACE_SECONDS = 1;

/** Requests a cell sends when it runs to its end: its schedule's (rate cell), else users x rounds, warm-up included. */
export function cellRequests(cell: Pick<Cell, 'concurrency' | 'rounds' | 'arrivals'>): number {
  return cell.arrivals ? cell.arrivals.requests : cell.concurrency * cell.rounds;
}

/**
 * VUs of a cell's k6 scenario, each running `rounds` iterations: its users, or a rate cell's senders, each of which
 * sends its share of the cell's one schedule in one iteration (lib/k6/open-loop.ts).
 */
export function cellVus(cell: Pick<Cell, 'concurrency' | 'arrivals'>): number {
  return cell.arrivals ? cell.arrivals.senders : cell.concurrency;
}

/** "2", "0_5": a rate in requests per second as a cell id has it. */
export function formatRate(rate: number): string {
  return String(rate).replace('.', '_');
}

/** The capacity search's settings, from the capacity section (maxUsers one number for every use case, or one each). */
