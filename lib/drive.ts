// The bench-driven protocol between a k6 script run by `npm run bench` and the bench. Runs in k6 and Node.
// The script asks the bench for its next request and reports the last one.
//
// Plain `k6 run` schedules cells in fixed time slots (lib/options.ts), which leaves a slot idle when
// a cell ends early. When the bench drives, every VU asks the bench's control endpoint (CONTROL_URL)
// what to send next: cells follow each other the moment the previous one ends, and capacity steps
// can be chosen from what was just measured (adaptive search). docs/design/architecture.md, "Bench-driven runs".

import type { Cell } from './plan';

/** The phase of a request in a step (tag `phase`): only `measured` requests enter a step's statistics. */
export const PHASES = ['measured', 'warmup', 'transition'] as const;
/**
 * measured: ran entirely within its step, after its user's warm-up;
 * warmup: the first request(s) of a user the step added (the burst of arriving users);
 * transition: still running when its step ended, so it ran partly under another step's load.
 */
export type Phase = (typeof PHASES)[number];

/** What a VU needs to send one request of a cell: the cell's description (its tags) and a ticket number. */
export interface Ticket {
  readonly ticket: number;
  readonly cell: Pick<Cell, 'id' | 'script' | 'contextTokens' | 'outputTokens' | 'concurrency' | 'useCase' | 'profile'>;
  /** The VU's first ticket of a step it joins (not carried over from the previous step): a new user arriving. */
  readonly joined?: boolean;
}

/** The answer to "what next?": a ticket, or stop (the run is over: the VU ends). */
export type NextAnswer = { readonly stop: true } | { readonly stop: false; readonly ticket: Ticket };

/** What a VU reports when a request ends: the figures a step's limits can be checked on. */
export interface DoneReport {
  readonly ticket: number;
  readonly ok: boolean;
  /** Run-clock ms (exec.instance.currentTestRunDuration) of the request's start and end. */
  readonly startMs: number;
  readonly endMs: number;
  readonly ttftMs: number | null;
  /** Time to the first content token; null when none came (or the request failed). */
  readonly ttfcMs: number | null;
  readonly e2eMs: number | null;
  readonly tpotMs: number | null;
  readonly decodeTokensPerSecond: number | null;
  readonly prefillTokensPerSecond: number | null;
  readonly outputTokens: number;
  /** Every inter-token latency of the request (ms), so ITL limits are checked on the same samples as the report. */
  readonly itlMs: readonly number[];
  /** Whether the request met every limit of its cell's use case (record.goodput); null when none was judged. */
  readonly goodput: boolean | null;
  /**
   * The measuring agent's health with the request (lib/k6/llm.ts AgentHealth), so the search judges a step's client
   * as the report does: its longest read lag (ms), CPU seconds per core so far, and tokens read together; null where
   * the agent did not say.
   */
  readonly readLagMs: number | null;
  readonly stallMs: number | null;
  readonly cpuPerCore: number | null;
  readonly tokensReadTogether: number | null;
}

/** The answer to a done report: the phase the request's samples are tagged with. */
export interface DoneAnswer {
  readonly phase: Phase;
}

export const CONTROL_PATHS = { next: '/next', done: '/done', status: '/status' } as const;

/** A use case whose capacity search has ended, as the bench states it (orchestrator/driven-results.ts). */
export interface CapacityAnnouncement {
  readonly useCase: string;
  /** The largest step within every limit (0: one user already breaks one). */
  readonly capacity: number;
  /** The 95% interval's ends; high null when it is open above the largest step measured. */
  readonly low: number | null;
  readonly high: number | null;
  /** The limit the first failing step broke ("speed > 10 tok/s"); null when no step broke one. */
  readonly limit: string | null;
}

/** The answer to /status: whether the run is over, and every capacity the search has decided so far. */
export interface StatusAnswer {
  readonly finished: boolean;
  readonly capacities: readonly CapacityAnnouncement[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads the control endpoint's answer to /next; throws with a one-line reason on anything else. */
export function parseNextAnswer(text: string): NextAnswer {
  const v: unknown = JSON.parse(text);
  if (isObject(v) && v.stop === true) return { stop: true };
  if (!isObject(v) || !isObject(v.ticket) || typeof v.ticket.ticket !== 'number' || !isObject(v.ticket.cell))
    throw new Error(`control: not a ticket: ${text.slice(0, 120)}`);
  const c = v.ticket.cell;
  if (
    typeof c.id !== 'string' ||
    typeof c.contextTokens !== 'number' ||
    typeof c.outputTokens !== 'number' ||
    typeof c.concurrency !== 'number'
  )
    throw new Error(`control: ticket without a cell: ${text.slice(0, 120)}`);
  return { stop: false, ticket: v.ticket as unknown as Ticket };
}

export function parseDoneAnswer(text: string): DoneAnswer {
  const v: unknown = JSON.parse(text);
  if (!isObject(v) || !(PHASES as readonly unknown[]).includes(v.phase)) {
    throw new Error(`control: not a phase: ${text.slice(0, 120)}`);
  }
  return { phase: v.phase as Phase };
}

const num = (v: unknown): number | null => (typeof v === 'number' && isFinite(v) ? v : null);

/** Reads the control endpoint's answer to /status; capacities it cannot read are left out. */
export function parseStatusAnswer(text: string): StatusAnswer {
  const v: unknown = JSON.parse(text);
  if (!isObject(v)) throw new Error(`control: not a status: ${text.slice(0, 120)}`);
  const capacities = (Array.isArray(v.capacities) ? v.capacities : []).flatMap((c: unknown): CapacityAnnouncement[] => {
    if (!isObject(c) || typeof c.useCase !== 'string' || num(c.capacity) === null) return [];
    return [{
      useCase: c.useCase, capacity: num(c.capacity)!, low: num(c.low), high: num(c.high),
      limit: typeof c.limit === 'string' ? c.limit : null,
    }];
  });
  return { finished: v.finished === true, capacities };
}

/** Validates a done report received by the bench; null when it is not one. */
export function parseDoneReport(v: unknown): DoneReport | null {
  if (!isObject(v) || typeof v.ticket !== 'number' || typeof v.ok !== 'boolean') return null;
  const startMs = num(v.startMs);
  const endMs = num(v.endMs);
  if (startMs === null || endMs === null) return null;
  return {
    ticket: v.ticket,
    ok: v.ok,
    startMs,
    endMs,
    ttftMs: num(v.ttftMs),
    ttfcMs: num(v.ttfcMs),
    e2eMs: num(v.e2eMs),
    tpotMs: num(v.tpotMs),
    decodeTokensPerSecond: num(v.decodeTokensPerSecond),
    prefillTokensPerSecond: num(v.prefillTokensPerSecond),
    outputTokens: num(v.outputTokens) ?? 0,
    itlMs: Array.isArray(v.itlMs) ? v.itlMs.filter((x): x is number => typeof x === 'number' && isFinite(x)) : [],
    goodput: typeof v.goodput === 'boolean' ? v.goodput : null,
    readLagMs: num(v.readLagMs),
    stallMs: num(v.stallMs),
    cpuPerCore: num(v.cpuPerCore),
    tokensReadTogether: num(v.tokensReadTogether),
  };
}
