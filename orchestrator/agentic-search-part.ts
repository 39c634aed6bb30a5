// How `npm run bench` runs an agentic part that searches (plan `agentic.search`): one k6 process per step, each a part
// folder of its own (agentic-search-NN) holding one step of N agents in k6's own time slots (ramp, warm-up, hold, as a
// ladder's step runs), the next N chosen from the steps so far (orchestrator/agentic-search.ts). Runs in Node.
//
// One process per step: a step's agents are k6 VUs whose sub-agents are concurrent requests of one VU, which the
// bench's one-ticket-per-request driving does not hold, and k6 cannot add VUs to a running scenario as the search
// goes. Each step is judged from its own folder by the report's own code, and the report reads the step folders
// together as the run's steps of agents, so the two cannot disagree.

import { EXIT } from '../lib/exit-codes';
import type { Plan } from '../lib/plan';
import { reschedulePlan } from '../lib/plan';
import { agenticDrafts } from '../lib/plan-agentic';
import { tierStepOf } from '../analysis/agentic-report';
import { DEFAULT_REPORT_OPTIONS } from '../report/build-report';
import type { LadderLimit } from '../analysis/capacity';
import { checkTierStep, tierCapacity, type TierStep } from '../analysis/slo-tiers';
import { measureStepFolder, stepPartName } from './rate-search-part';
import type { SloTier } from '../thresholds/agentic';
import {
  checkAgenticSearchConfig, nextAgentsStep, tierSearchLimits, type AgenticSearchConfig, type AgentsSearchState,
  type AgentsStep,
} from './agentic-search';
import { clientBoundWords, formatInterval, tierDisplay } from '../report/capacity-words';
import { stepClientLimit } from './machine-stall';

/** The step folder of the n-th step (from 1) of an agents' search. */
export function agenticStepPartName(n: number): string {
  return stepPartName(n, 'agentic');
}

/** The plan of one step: the searched plan with one step of `agents`, its slot sized as a ladder's step. */
export function agenticStepPlan(plan: Plan, agents: number, again = false): Plan {
  const cfg = plan.agentic;
  if (plan.script !== 'agentic' || cfg === null) throw new Error('an agents search needs an agentic plan');
  // A step measured again keeps an id of its own: the report reads the two apart, as a rate search's.
  const drafts = agenticDrafts([agents], cfg).map((d) => ({ ...d, id: again ? `${d.id}_again` : d.id }));
  return reschedulePlan({ ...plan, cells: drafts as unknown as Plan['cells'] }, plan.schedule);
}

/** A measured step: its verdicts for the search, and the step as the report's tiers read it. */
export interface JudgedAgentsStep {
  readonly step: AgentsStep;
  readonly tierStep: TierStep;
}

/** The search of one agentic part: its tiers' limits, the steps in the order measured, its outcome once it has one. */
export class AgenticSearchRun {
  readonly tiers: readonly SloTier[];
  readonly limits: readonly (readonly LadderLimit[])[];
  readonly steps: JudgedAgentsStep[] = [];
  outcome: Extract<AgentsSearchState, { kind: 'done' }> | null = null;
  private readonly cfg: AgenticSearchConfig;

  constructor(private readonly plan: Plan, private readonly minSuccessRate: number) {
    const cfg = plan.agentic?.search;
    if (!cfg) throw new Error('the agentic plan has no search');
    checkAgenticSearchConfig(cfg);
    this.cfg = cfg;
    this.tiers = plan.agentic!.tiers;
    this.limits = this.tiers.map((t) => tierSearchLimits(t, minSuccessRate));
  }

  /** The next step to measure (its agents and plan), or null once every tier is resolved. */
  next(): { agents: number; again: boolean; plan: Plan } | null {
    if (this.outcome) return null;
    const state = nextAgentsStep(this.steps.map((s) => s.step), this.cfg, this.limits);
    if (state.kind === 'done') {
      this.outcome = state;
      return null;
    }
    return { agents: state.agents, again: state.again, plan: agenticStepPlan(this.plan, state.agents, state.again) };
  }

  /** A step judged from its own folder: each tier's verdict as the report gives it. */
  async judge(stepDir: string, cellId: string, stallMs: number | null = null): Promise<JudgedAgentsStep> {
    const measured = await measureStepFolder(stepDir);
    const cell = measured.cells.find((c) => c.id === cellId);
    if (!cell || cell.succeeded + cell.failed === 0) throw new Error(`step ${stepDir}: no measured calls in ${cellId}`);
    const tierStep = tierStepOf(cell, measured.agentic.get(cellId));
    const tiers = this.tiers.map((t, i) => {
      const checks = checkTierStep(tierStep, t, this.minSuccessRate).map((c, k) => ({
        metric: this.limits[i]![k]!.metric, expression: this.limits[i]![k]!.expression, ...c,
      }));
      return { ok: checks.every((c) => c.ok), checks };
    });
    const clientLimited = stepClientLimit(cell.clientBound && clientBoundWords(cell.clientBound), stallMs);
    const step = { agents: cell.concurrency, cellId, tiers, clientLimited };
    const judged = { step, tierStep };
    this.steps.push(judged);
    return judged;
  }

  /** One line per tier, read from the steps as the report reads them: capacity, interval, what broke, the steps. */
  summary(): string[] {
    const tierSteps = this.steps.map((s) => s.tierStep);
    const tried = this.steps.map((s) => s.step)
      .map((s) => `${s.agents}${s.clientLimited ? '!' : s.tiers.every((t) => t.ok) ? '+' : 'x'}`).join(' ');
    const lines = this.tiers.map((tier, i) => {
      const t = tierCapacity(tier, tierSteps, this.minSuccessRate);
      const interval = t.interval && t.kind !== 'untested' ? ` (95% ${formatInterval(t.interval)})` : '';
      const broke = t.firstFail !== null ? `breaks at ${t.firstFail} (${t.brokenBy.join(', ')})`
        : t.kind === 'undetermined' ? 'no clean step broke a limit' : 'no step broke a limit';
      const o = this.outcome?.tiers[i];
      const end = !this.outcome ? '; not searched to its end' : o?.limited ? '; the client ended its search' : '';
      const n = t.kind === 'below' ? t.firstFail : t.capacity;
      return `${tier.id}: ${tierDisplay(t)} agent${n === 1 ? '' : 's'}${interval}, ${broke}${end}`;
    });
    const limited = this.outcome?.clientLimited;
    if (limited) lines.push(`the client limited ${limited.agents} agents twice (${limited.clientLimited})`);
    return [...lines, `steps ${tried || 'none'} (+ every tier held, x one broke, ! the client limited it)`];
  }
}

/** What the search needs of the bench: run a step's k6 in a part folder, log a line, say whether it was stopped. */
export interface AgenticSearchIo {
  runStep(plan: Plan, partName: string): Promise<{
    code: number; requests: number; partDir: string; stallMs?: number | null;
  }>;
  log(line: string): void;
  stopped(): boolean;
}

/**
 * Runs the search, a k6 process per step, to its end or an interrupt; resolves to the worst exit code (an interrupt
 * counts as 0) and the requests measured. A step k6 could not finish, or that cannot be judged, ends the search there.
 */
export async function runAgenticSearch(plan: Plan, io: AgenticSearchIo): Promise<{ code: number; requests: number }> {
  const search = new AgenticSearchRun(plan, DEFAULT_REPORT_OPTIONS.minSuccessRate ?? 0);
  io.log(`agentic: searching the concurrent agents of ${search.tiers.length} tiers ` +
    `(${search.tiers.map((t) => t.id).join(', ')}), one k6 process per step`);
  let worst = 0;
  let requests = 0;
  for (let n = 1; !io.stopped(); n++) {
    const step = search.next();
    if (step === null) break;
    const r = await io.runStep(step.plan, agenticStepPartName(n));
    worst = Math.max(worst, r.code === EXIT.interrupted ? 0 : r.code);
    requests += r.requests;
    if (io.stopped() || (r.code !== EXIT.ok && r.code !== EXIT.thresholdsFailed)) break;
    try {
      const { step: judged } = await search.judge(r.partDir, step.plan.cells[0]!.id, r.stallMs ?? null);
      const verdict = judged.clientLimited ? `limited by the client (${judged.clientLimited})`
        : search.tiers.map((t, i) => `${t.id} ${judged.tiers[i]!.ok ? 'held' : 'broke'}`).join(', ');
      const agents = `${step.agents} agent${step.agents === 1 ? '' : 's'}`;
      io.log(`agentic search at ${agents}${step.again ? ' (again)' : ''}: ${verdict}`);
    } catch (e) {
      io.log(`agentic search: step ${n} could not be judged (${(e as Error).message}); the search ends`);
      break;
    }
  }
  for (const line of search.summary()) io.log(`agentic search: ${line}`);
  return { code: worst, requests };
}
