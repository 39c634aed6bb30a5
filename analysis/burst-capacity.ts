// Max safe burst depth of a burst profile: the deepest burst whose TTFT statistic stays within the plan's limit. Runs
// in Node.

import type { LimitStat } from '../lib/plan';
import { limitExpression } from '../lib/options';
import type { CellStats } from './cells';
import { evaluateLadder, type LadderLimit, type LadderResult } from './capacity';

export interface BurstCapacity {
  readonly profile: string;
  readonly title: string;
  readonly contextTokens: number;
  readonly outputTokens: number;
  readonly cellIds: readonly string[];
  readonly limit: LadderLimit;
  readonly result: LadderResult;
}

/**
 * Max safe queue depth of a burst profile: the deepest burst whose TTFT statistic stays <= the limit
 * (plan.burstTtftLimitMs).
 */
export function burstCapacity(
  profile: string, title: string, cells: readonly CellStats[], stat: LimitStat, ttftLimitMs: number,
): BurstCapacity {
  const mine = cells.filter((c) => c.script === 'burst' && c.profile === profile);
  const limit: LadderLimit = {
    metric: 'ttft', operator: '<=', value: ttftLimitMs, label: `TTFT <= ${ttftLimitMs / 1000} s`,
    expression: limitExpression({ operator: '<=', value: ttftLimitMs }, stat),
  };
  const first = mine[0];
  return {
    profile,
    title,
    contextTokens: first?.contextTokens ?? 0,
    outputTokens: first?.outputTokens ?? 0,
    cellIds: mine.map((c) => c.id),
    limit,
    result: evaluateLadder(mine, [limit]),
  };
}
