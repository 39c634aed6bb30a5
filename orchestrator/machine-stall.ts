// The machine's longest stall under the measuring agents over a part: asked of each agent after the part ran
// (GET /stalls, agent/stall.go). A request's own record carries the stalls it ran across; a stall that only requests
// cut unanswered ran across (k6 resumed past its cell's end and dropped them) is seen here alone. Runs in Node.

import { STALL_LIMIT_MS } from '../analysis/client-bound';
import { stallWords } from '../report/capacity-words';

/** How long an agent may take to say: it answers from memory. */
const ASK_TIMEOUT_MS = 2000;

/** One agent's longest stall between two wall-clock times (epoch ms); null when it did not say (never a throw). */
async function agentStallMs(url: string, fromMs: number, toMs: number): Promise<number | null> {
  try {
    const query = `fromEpochMs=${Math.floor(fromMs)}&toEpochMs=${Math.ceil(toMs)}`;
    const res = await fetch(`${url}/stalls?${query}`, { signal: AbortSignal.timeout(ASK_TIMEOUT_MS) });
    if (!res.ok) return null;
    const body = (await res.json()) as { longestMs?: unknown };
    return typeof body.longestMs === 'number' && Number.isFinite(body.longestMs) ? body.longestMs : null;
  } catch {
    return null;
  }
}

/** The longest stall any of the agents saw between two wall-clock times, ms; null when none said. */
export async function agentsStallMs(urls: readonly string[], fromMs: number, toMs: number): Promise<number | null> {
  const said = (await Promise.all(urls.map((u) => agentStallMs(u, fromMs, toMs)))).filter((v) => v !== null);
  return said.length === 0 ? null : Math.max(...said);
}

/** The longest stall over a part that started at `fromMs` and just ended; `say` tells of one that limits a step. */
export async function partStallMs(
  urls: readonly string[], fromMs: number, say: (line: string) => void,
): Promise<number | null> {
  const stallMs = await agentsStallMs(urls, fromMs, Date.now());
  if (stallMs !== null && stallMs >= STALL_LIMIT_MS) say(stallWords(stallMs));
  return stallMs;
}

/**
 * Why a searched step was limited by the client: its own verdict, else a stall of the machine of STALL_LIMIT_MS or
 * more during its part (its times hold the pause, and requests it cut may carry it unseen); null for a clean step.
 */
export function stepClientLimit(own: string | null, stallMs: number | null): string | null {
  if (own) return own;
  return stallMs !== null && stallMs >= STALL_LIMIT_MS ? stallWords(stallMs) : null;
}
