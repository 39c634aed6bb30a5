// Cell time slots predicted from the simulator's own engine, so a bench against the simulator wastes no idle slot time.
// Runs in Node.

import type { Plan } from '../lib/plan';
import type { Profile } from '../sim/profiles';
import { runVirtualBatch } from '../sim/virtual-run';

/**
 * Prompt tokens per second the simulator's tokenizer workers count on this class of machine (measured: ~300K/s per
 * core).
 */
const TOKENIZE_TOKENS_PER_SECOND = 250_000;

/**
 * Predicted seconds for each cell: its rounds of N simultaneous requests as the engine model runs
 * them in virtual time, plus the CPU time the simulator spends counting prompt tokens.
 */
export function predictCellSeconds(plans: readonly Plan[], profile: Profile): Record<string, number> {
  const out: Record<string, number> = {};
  const memo = new Map<string, number>();
  for (const plan of plans) {
    // A sessions or agentic step holds its own timing (lib/plan-sessions.ts, lib/plan-agentic.ts): no batch to predict.
    if (plan.script === 'sessions' || plan.script === 'agentic') continue;
    for (const cell of plan.cells) {
      // An open-loop cell's slot is its schedule's (lib/plan.ts rateSlot), not a batch's.
      if (cell.arrivals) continue;
      // An embed request's prompt is its whole batch, run as one prefill (sim/server.ts handleEmbed).
      const promptTokens = cell.contextTokens * (cell.batch ?? 1);
      const key = `${promptTokens}/${cell.outputTokens}/${cell.concurrency}`;
      let wallMs = memo.get(key);
      if (wallMs === undefined) {
        wallMs = runVirtualBatch(profile, promptTokens, cell.outputTokens, cell.concurrency).wallMs;
        memo.set(key, wallMs);
      }
      const tokenizeSeconds = (cell.concurrency * cell.rounds * promptTokens) / TOKENIZE_TOKENS_PER_SECOND;
      out[cell.id] = Math.round((cell.rounds * wallMs) / 10) / 100 + tokenizeSeconds;
    }
  }
  return out;
}
