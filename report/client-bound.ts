// Whether the load generator, not the server, set a cell's pace: a pure verdict from what the measuring agent
// reported of itself with each request (llm_client_read_lag, llm_client_cpu_seconds). Runs in Node.
//
// The agent (agent/, its own process beside k6) reads every stream and stamps its tokens with the kernel's receive
// times, so a busy agent costs no accuracy until its reader falls a whole inter-token gap behind: then two tokens
// are read together and share one time, and the cell's ITL distribution is wrong even though its mean stays right.
// The agent's CPU used up is the other sign. k6's own CPU is not measured and not part of the verdict: k6 only
// starts requests and pushes their records' samples, so a busy k6 delays request starts (the load offered), not
// token times.

/** What the samples of one cell say about the client (null where a figure is unknown). */
export interface ClientEvidence {
  /** p99 over the cell's requests of each request's longest read lag in the agent (llm_client_read_lag), ms. */
  readonly readLagP99Ms: number | null;
  /** Share of its cores (GOMAXPROCS) the measuring agent used over the cell (llm_client_cpu_seconds), 0..1. */
  readonly cpuShare: number | null;
  /** The cell's median inter-token latency, ms. */
  readonly itlMedianMs: number | null;
}

/** At or above this share of its cores, the measuring agent itself is the bottleneck. */
export const CPU_SHARE_LIMIT = 0.9;
/** A read lag p99 at or above this share of the median inter-token gap risks tokens read together. */
export const READ_LAG_GAP_SHARE = 0.5;
/** Read lags below this are scheduling noise whatever the gap. */
export const READ_LAG_FLOOR_MS = 1;

/** Why the cell was client-bound, or null when nothing says it was. */
export function clientBoundReason(e: ClientEvidence): string | null {
  const reasons: string[] = [];
  if (e.cpuShare !== null && e.cpuShare >= CPU_SHARE_LIMIT) {
    reasons.push(`the measuring agent used ${Math.round(e.cpuShare * 100)}% of its cores`);
  }
  if (
    e.readLagP99Ms !== null &&
    e.itlMedianMs !== null &&
    e.readLagP99Ms >= READ_LAG_FLOOR_MS &&
    e.readLagP99Ms >= READ_LAG_GAP_SHARE * e.itlMedianMs
  ) {
    reasons.push(
      `the measuring agent read its streams up to ${e.readLagP99Ms.toFixed(1)} ms late (p99) ` +
      `against a median inter-token gap of ${e.itlMedianMs.toFixed(1)} ms, so tokens were read together`,
    );
  }
  return reasons.length > 0 ? reasons.join('; ') : null;
}

/** Share of the cores used between two samples of cumulative per-core CPU seconds, or null below one second apart. */
export function cpuShareBetween(
  first: { atMs: number; seconds: number }, last: { atMs: number; seconds: number },
): number | null {
  const wallSeconds = (last.atMs - first.atMs) / 1000;
  if (!(wallSeconds >= 1)) return null;
  return Math.max(0, (last.seconds - first.seconds) / wallSeconds);
}
