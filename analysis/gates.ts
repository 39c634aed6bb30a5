// The deploy gate's verdict: each gate cell checked against its use case's limits, the gate's minimum success rate and
// the plan's goodput, as a capacity step is checked. Pure; runs in Node. report/gate-verdict.ts words the failures.

import type { Plan } from '../lib/plan';
import { checkLimit, ladderLimits, type LimitCheck } from './capacity';
import type { CellStats } from './cells';

/** One gate cell's verdict. */
export interface GateResult {
  readonly useCaseId: string;
  readonly title: string;
  readonly cellId: string;
  readonly concurrency: number;
  readonly measured: boolean;
  readonly checks: readonly LimitCheck[];
  readonly ok: boolean;
}

/** Each gate cell checked against its use case's limits, the gate's minimum success rate and the plan's goodput. */
export function gateResults(plans: readonly Plan[], cells: readonly CellStats[]): GateResult[] {
  const gates: GateResult[] = [];
  for (const plan of plans) {
    const gate = plan.gate;
    if (plan.script !== 'gate' || !gate) continue;
    const useCase = plan.useCases.find((candidate) => candidate.id === gate.useCase);
    if (!useCase) continue;
    for (const cell of cells.filter((candidate) => candidate.script === 'gate' && candidate.useCase === useCase.id)) {
      const measured = cell.requests > 0;
      const limits = ladderLimits(useCase.limits, plan.limitStat, gate.minSuccessRate, plan.minGoodput);
      const checks = measured ? limits.map((limit) => checkLimit(cell, limit)) : [];
      const ok = measured && checks.every((check) => check.ok);
      const { id: cellId, concurrency } = cell;
      gates.push({ useCaseId: useCase.id, title: useCase.title, cellId, concurrency, measured, checks, ok });
    }
  }
  return gates;
}
