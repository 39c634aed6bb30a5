// Whether the load generator, not the server, limited a cell: a pure verdict from what the measuring agent reported
// of itself with each request (llm_client_read_together, llm_client_cpu_seconds, llm_client_read_lag,
// llm_client_stall). Runs in Node.
//
// The agent (agent/, its own process beside k6) stamps every token with the kernel's receive time of its bytes, so a
// late read costs no accuracy by itself: the bytes keep the time they arrived. It costs accuracy only when the reader
// falls a whole inter-token gap behind, and then two chunks are read together and share one time: that is counted
// directly (tokens read together, the server's own multi-token chunks apart), not guessed from the lag. One stream
// now and then reads a few ms late when the core is taken from the agent (other processes; on a VM, the hypervisor)
// without reading a token together (docs/design/client-integrity.md). The agent's CPU used up is the other sign.
// A stall is the one thing kernel receive times do not survive: the machine itself not running (a paused or starved
// VM), so the kernel stamps late too; the agent's stall meter sees it as time it neither ran nor waited for a core.
// k6's own CPU is not measured and not part of the verdict: k6 only starts requests and pushes their records'
// samples, so a busy k6 delays request starts (the load delivered, shown beside the verdict), not token times.

/** What the samples of one cell say about the client (null where a figure is unknown). */
export interface ClientEvidence {
  /** p99 over the cell's requests of each request's longest read lag in the agent (llm_client_read_lag), ms. */
  readonly readLagP99Ms: number | null;
  /** Share of its cores (GOMAXPROCS) the measuring agent used over the cell (llm_client_cpu_seconds), 0..1. */
  readonly cpuShare: number | null;
  /** The cell's median inter-token latency, ms. */
  readonly itlMedianMs: number | null;
  /** Tokens read together with the chunk before them (llm_client_read_together); null: the agent did not say. */
  readonly tokensReadTogether: number | null;
  /** The cell's ITL samples: one per token after a request's first. */
  readonly itlSamples: number;
  /** Requests whose agent said (llm_client_stall), those across a stall of STALL_LIMIT_MS or more, the longest. */
  readonly stalls: { readonly requests: number; readonly over: number; readonly longestMs: number };
}

/** At or above this share of its cores, the measuring agent itself is the bottleneck. */
export const CPU_SHARE_LIMIT = 0.9;
/**
 * At or above this share of the ITL samples read together, the client's reading moved the ITL p99 (the highest
 * percentile the report gives): each such token's gap is 0 and the one before it twice the server's.
 */
export const READ_TOGETHER_LIMIT = 0.01;
/** Tokens read together are the client's when its read lag p99 reached this share of the median inter-token gap. */
export const READ_LAG_GAP_SHARE = 0.5;
/** Read lags below this are scheduling noise whatever the gap. */
export const READ_LAG_FLOOR_MS = 1;
/**
 * A stall this long moves a request's figures beyond what the report is read for: a TTFT limit's tenth at 500 ms,
 * more than a token gap at 20 tokens/s. Shorter ones, a host's brief preemption of the VM, are left to the margins.
 */
export const STALL_LIMIT_MS = 50;
/** At or above this share of the requests running across a stall, the cell's p99 can be the stall's. */
export const STALL_SHARE_LIMIT = 0.01;

/** How the agent's reading made a cell's inter-token gaps the client's rather than the server's. */
export type ClientReading =
  /** It read this share of the ITL samples together with the chunk before them, late (read lag p99, ms). */
  | { readonly kind: 'readTogether'; readonly share: number; readonly readLagP99Ms: number | null }
  /** It did not count tokens read together (older runs), and read up to a whole median gap late. */
  | { readonly kind: 'readLate'; readonly readLagP99Ms: number; readonly itlMedianMs: number };

/**
 * The machine stopped running the agent: this share of the requests ran across a stall, the longest this long; share
 * null: the stall was seen over the cell's part (its requests cut unanswered may have carried it).
 */
export interface ClientStall {
  readonly share: number | null;
  readonly longestMs: number;
}

/** Why a cell was client-bound: the agent's CPU share (null: under the limit), its reading, the machine's stalls. */
export interface ClientBoundCause {
  readonly agentCpuShare: number | null;
  readonly reading: ClientReading | null;
  readonly stall: ClientStall | null;
}

/** Why the cell was client-bound, or null when nothing says it was. */
export function clientBoundCause(e: ClientEvidence): ClientBoundCause | null {
  const agentCpuShare = e.cpuShare !== null && e.cpuShare >= CPU_SHARE_LIMIT ? e.cpuShare : null;
  const reading = clientReading(e);
  const stall = clientStall(e.stalls);
  return agentCpuShare === null && reading === null && stall === null ? null : { agentCpuShare, reading, stall };
}

/**
 * The one cell of a part (a searched step) the machine stalled in for STALL_LIMIT_MS or more (run.json stallsMs, asked
 * of the agents after the part): client-bound by that stall unless its own requests already said so. In a part of
 * several cells the stall's cell is not known; there the requests' own stalls judge.
 */
export function withPartStall<C extends { readonly clientBound: ClientBoundCause | null }>(
  cell: C, partStallMs: number | undefined,
): C {
  if (partStallMs === undefined || partStallMs < STALL_LIMIT_MS || cell.clientBound?.stall) return cell;
  const stall = { share: null, longestMs: partStallMs };
  return { ...cell, clientBound: { agentCpuShare: null, reading: null, ...cell.clientBound, stall } };
}

/** Stalls of STALL_LIMIT_MS or more under STALL_SHARE_LIMIT of the requests or beyond; null below it or unsaid. */
function clientStall(s: ClientEvidence['stalls']): ClientStall | null {
  if (s.requests === 0 || s.over / s.requests < STALL_SHARE_LIMIT) return null;
  return { share: s.over / s.requests, longestMs: s.longestMs };
}

/**
 * Tokens read together beyond READ_TOGETHER_LIMIT, by a reader that was late: its read lag p99 at least
 * READ_LAG_GAP_SHARE of the median gap. Two chunks the server wrote microseconds apart (the simulator's timers on a
 * busy core) are read together by the fastest reader, whose lag stays small; a reader that fell a gap behind lags
 * too (docs/design/client-integrity.md). Samples of an agent that did not count them (older runs) fall back on the
 * read lag alone: a p99 of a whole median gap could have read tokens together.
 */
function clientReading(e: ClientEvidence): ClientReading | null {
  const lateShare = (share: number): boolean => e.readLagP99Ms === null || e.itlMedianMs === null ||
    (e.readLagP99Ms >= READ_LAG_FLOOR_MS && e.readLagP99Ms >= share * e.itlMedianMs);
  if (e.tokensReadTogether !== null) {
    const share = e.itlSamples > 0 ? e.tokensReadTogether / e.itlSamples : 0;
    if (share < READ_TOGETHER_LIMIT || !lateShare(READ_LAG_GAP_SHARE)) return null;
    return { kind: 'readTogether', share, readLagP99Ms: e.readLagP99Ms };
  }
  if (e.readLagP99Ms === null || e.itlMedianMs === null || !lateShare(1)) return null;
  return { kind: 'readLate', readLagP99Ms: e.readLagP99Ms, itlMedianMs: e.itlMedianMs };
}

/** Share of the cores used between two samples of cumulative per-core CPU seconds, or null below one second apart. */
export function cpuShareBetween(
  first: { atMs: number; seconds: number }, last: { atMs: number; seconds: number },
): number | null {
  const wallSeconds = (last.atMs - first.atMs) / 1000;
  if (!(wallSeconds >= 1)) return null;
  return Math.max(0, (last.seconds - first.seconds) / wallSeconds);
}

/** A ladder step as decidingClientBound reads it. */
interface LadderCell {
  readonly concurrency: number;
  readonly requests: number;
  readonly clientBound: ClientBoundCause | null;
}

/**
 * The client-bound steps that would decide a capacity read off the clean steps: above its last pass (lastPass, null:
 * none) and below its first fail (null: none), with no clean measurement of the same users. Rising users.
 */
export function decidingClientBound(
  cells: readonly LadderCell[], lastPass: number | null, firstFail: number | null,
): { users: number; cause: ClientBoundCause }[] {
  const clean = new Set(cells.filter((c) => c.requests > 0 && c.clientBound === null).map((c) => c.concurrency));
  return cells
    .filter((c) => c.requests > 0 && c.clientBound !== null && !clean.has(c.concurrency))
    .filter((c) => c.concurrency > (lastPass ?? 0) && c.concurrency < (firstFail ?? Infinity))
    .sort((a, b) => a.concurrency - b.concurrency)
    .map((c) => ({ users: c.concurrency, cause: c.clientBound! }));
}
