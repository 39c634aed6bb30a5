// The accuracy study's one judge (bench/accuracy.ts): every client's per-request figures paired with the simulator's
// ground-truth record of the same request, then per figure the median and p99 of the differences client - truth.
// Pure: the benchmark runs the clients and reads their files; this only pairs and compares. Runs in Node.
//
// The truth's figures follow the suite's definitions (docs/design/architecture.md), on the server's clock:
//   TTFT = first token written - request headers read; ITL = the gap between token writes, a chunk's spread over its
//   tokens as the agent spreads it; e2e = end of the response - headers read; TPOT, decode and prefill speed by
//   lib/request-figures.ts, the one definition the agent's are pinned to. Open loop, against an intended send time:
//   send lag = headers read - intended; TTFT and e2e from the intended send likewise.
// A client's figure it does not report is null and gives that figure no difference (the row says "-").
// A difference is client - truth in ms, but for the speeds, where it is relative: (client / truth - 1) x 100, in %.
// Each figure gives the median of its signed differences (the client's bias) and the p99 of their absolute values
// (how far the worst 1% are off, whichever way).

import { k6Percentile } from '../lib/percentile';
import { chunksOfTokenTimes, requestFigures } from '../lib/request-figures';

/** A ground-truth record as GET /debug/ground-truth gives it (sim/ground-truth.ts), the fields judged. */
export interface TruthRecord {
  readonly requestId: string;
  readonly promptHead: string;
  readonly promptTokens: number;
  readonly arrivalEpochMs: number;
  readonly tokenEpochMs: readonly number[];
  readonly endEpochMs: number | null;
  readonly outcome: string;
}

/** The figures judged, each in ms but the speeds (tokens/s). */
export const FIGURES = [
  'ttft', 'itl', 'tpot', 'e2e', 'decodeSpeed', 'prefillSpeed', 'sendLag', 'ttftIntended', 'e2eIntended',
] as const;
export type Figure = (typeof FIGURES)[number];

/** One request's figures; null where not reported (or, for the truth, undefined: one token, no intended time). */
export type Figures = Readonly<Record<Exclude<Figure, 'itl'>, number | null>> & {
  /** Per token after the first (a client reporting per chunk gives one value per chunk). */
  readonly itl: readonly number[] | null;
};

/** A client's request: its figures and the key that names its truth record. */
export interface ClientRequest {
  readonly key: string;
  readonly figures: Figures;
}

/** The truth's figures of one completed record; `intendedEpochMs` is its intended send time (open loop) or null. */
export function truthFigures(t: TruthRecord, intendedEpochMs: number | null): Figures {
  const w = t.tokenEpochMs;
  const from = (end: number | null): number | null =>
    intendedEpochMs === null || end === null ? null : end - intendedEpochMs;
  const own = t.endEpochMs === null ? null : requestFigures({
    startMs: t.arrivalEpochMs, chunks: chunksOfTokenTimes(w), endMs: t.endEpochMs, inputTokens: t.promptTokens,
  });
  return {
    ttft: w.length > 0 ? w[0]! - t.arrivalEpochMs : null, itl: own?.itlMs ?? [],
    e2e: t.endEpochMs === null ? null : t.endEpochMs - t.arrivalEpochMs,
    tpot: own?.tpotMs ?? null, decodeSpeed: own?.decodeTokensPerSecond ?? null,
    prefillSpeed: own?.prefillTokensPerSecond ?? null,
    sendLag: from(t.arrivalEpochMs), ttftIntended: from(w.length > 0 ? w[0]! : null), e2eIntended: from(t.endEpochMs),
  };
}

/**
 * Where an open-loop schedule's clock starts on the server's, epoch ms: the earliest arrival less its intended offset
 * (no request arrives before its intended time, so this is the latest origin consistent with every arrival; the
 * request that defines it has a send lag of 0 and every other one is judged against it). NaN without arrivals.
 */
export function scheduleOrigin(
  arrivals: readonly { readonly arrivalEpochMs: number; readonly atMs: number }[],
): number {
  return arrivals.length === 0 ? NaN : Math.min(...arrivals.map((a) => a.arrivalEpochMs - a.atMs));
}

export interface Pair {
  readonly client: Figures;
  readonly truth: Figures;
}

export interface Pairing {
  readonly pairs: readonly Pair[];
  /** Client requests whose key names no completed truth record. */
  readonly clientOnly: number;
  /** Completed truth records no client request named. */
  readonly truthOnly: number;
}

/**
 * Pairs each client request with the completed truth record of the same key (`keyOf` names a record: its request id,
 * or the user and iteration its prompt line gives; null for none). `intendedOf` gives a record's intended send time.
 */
export function pairRequests(
  clients: readonly ClientRequest[], truth: readonly TruthRecord[], keyOf: (t: TruthRecord) => string | null,
  intendedOf: (t: TruthRecord) => number | null = () => null,
): Pairing {
  const byKey = new Map<string, TruthRecord>();
  for (const t of truth) {
    const k = t.outcome === 'completed' ? keyOf(t) : null;
    if (k !== null) byKey.set(k, t);
  }
  const pairs: Pair[] = [];
  for (const c of clients) {
    const t = byKey.get(c.key);
    if (t === undefined) continue;
    byKey.delete(c.key);
    pairs.push({ client: c.figures, truth: truthFigures(t, intendedOf(t)) });
  }
  return { pairs, clientOnly: clients.length - pairs.length, truthOnly: byKey.size };
}

/** Per-token differences of ITL, aligned on the last token: a client that reports one value more (a role chunk's gap
 * first, as vllm bench serve does) or fewer is compared on the tokens both have, the latest ones. */
export function itlDifferences(client: readonly number[], truth: readonly number[]): number[] {
  const n = Math.min(client.length, truth.length);
  const c = client.length - n;
  const t = truth.length - n;
  return Array.from({ length: n }, (_, i) => client[c + i]! - truth[t + i]!);
}

/** One figure's judgement; medians and p99s are k6's percentile (lib/percentile.ts), NaN without values. */
export interface Judged {
  /** Differences client - truth: one per request (per token for ITL). */
  readonly n: number;
  /** Of the signed differences. */
  readonly median: number;
  /** Of the absolute differences. */
  readonly p99: number;
}

/** Requests whose ITL count differs from the truth's, and the share of values under 1 ms ("read together"). */
export interface Together {
  readonly client: number;
  readonly truth: number;
}

export interface Judgement {
  readonly requests: number;
  readonly figures: Readonly<Record<Figure, Judged>>;
  readonly itlCountMismatches: number;
  readonly together: Together;
  /** ITL p99 over every value, client and truth (issue 41's target compares these two). */
  readonly itlP99: Together;
}

/** Under this gap, two tokens count as read (or written) together. */
export const TOGETHER_MS = 1;

/** The speeds, judged relative to the truth (%). */
export const RELATIVE: ReadonlySet<Figure> = new Set<Figure>(['decodeSpeed', 'prefillSpeed']);

/** client - truth; for a speed (client / truth - 1) x 100. */
export function difference(figure: Figure, client: number, truth: number): number {
  return RELATIVE.has(figure) ? (client / truth - 1) * 100 : client - truth;
}

const pct = (values: readonly number[], p: number): number => {
  if (values.length === 0) return NaN;
  const s = Float64Array.from(values).sort();
  return k6Percentile(s, s.length, p);
};

/** Median of the signed differences, p99 of their absolute values. */
export function stats(values: readonly number[]): Judged {
  return { n: values.length, median: pct(values, 0.5), p99: pct(values.map(Math.abs), 0.99) };
}

const shareBelow = (xs: readonly number[], limit: number): number =>
  xs.length === 0 ? NaN : xs.filter((x) => x < limit).length / xs.length;

/** Every figure's differences over the pairs, and the ITL figures that compare whole sets. */
export function judge(pairs: readonly Pair[]): Judgement {
  const diffs = Object.fromEntries(FIGURES.map((f) => [f, [] as number[]])) as Record<Figure, number[]>;
  const itlClient: number[] = [];
  const itlTruth: number[] = [];
  let itlCountMismatches = 0;
  for (const { client, truth } of pairs) {
    for (const f of FIGURES) {
      if (f === 'itl') continue;
      const c = client[f];
      const t = truth[f];
      if (c !== null && t !== null && Number.isFinite(c) && Number.isFinite(t)) diffs[f].push(difference(f, c, t));
    }
    if (client.itl === null || truth.itl === null) continue;
    if (client.itl.length !== truth.itl.length) itlCountMismatches++;
    diffs.itl.push(...itlDifferences(client.itl, truth.itl));
    itlClient.push(...client.itl);
    itlTruth.push(...truth.itl);
  }
  const figures = Object.fromEntries(FIGURES.map((f) => [f, stats(diffs[f])])) as Record<Figure, Judged>;
  return {
    requests: pairs.length, figures, itlCountMismatches,
    together: { client: shareBelow(itlClient, TOGETHER_MS), truth: shareBelow(itlTruth, TOGETHER_MS) },
    itlP99: { client: pct(itlClient, 0.99), truth: pct(itlTruth, 0.99) },
  };
}
