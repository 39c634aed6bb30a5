// The "Agentic Workloads" section: concurrent agents per SLO tier, each step's agents, TTFT by turn and prompt size.
// Runs in Node.

import type { AgenticReport, AgenticStep, TtftGroup } from '../../analysis/agentic-report';
import { DocBuilder, type Block } from '../document';
import { fmtInt, fmtMs, fmtPct, fmtTokS, plural } from '../format';
import type { Report } from '../report-types';
import { type TierCapacity } from '../../analysis/slo-tiers';
import { thinkPhrase } from './active-users';
import { sentences } from '../phrases';
import { formatInterval, tierDisplay } from '../capacity-words';

/** The section; none without an agentic part. */
export function agenticSection(report: Report, charts: ReadonlySet<string>): Block[] {
  const a = report.agentic;
  if (a === null) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Agentic Workloads');
  doc.p(sentences(
    'How many coding agents can run on this deployment at once, per service tier?',
    ...(a.trace ? replayWords(a.trace) : generatorWords(a.model)),
    'A tier holds when every limit holds on the measured calls of a step of N agents; its capacity is the last ' +
      'step before the first that breaks one, as measured.',
    ...(a.search ? searchWords(a.search) : []),
    ...clientWords(a.tiers, a.search !== null),
  ));
  doc.table(
    ['TIER', 'LIMITS', 'CONCURRENT AGENTS (95% INTERVAL)', 'FIRST LIMIT TO BREAK', 'THROUGHPUT AT CAPACITY', 'STEPS'],
    a.tiers.map((t) => tierRow(t, a.gateTier)),
  );
  doc.chart('agentic_tiers', charts);
  doc.h(3, 'Agents at each step');
  doc.table(
    [
      'AGENTS', 'CALLS', 'TTFT P90', 'SPEED P25', 'THROUGHPUT', 'AGENT STEP (MEDIAN / P95)', 'SESSION (MEAN)',
      'TOKENS PER SESSION', 'WAITING ON THE MODEL', 'PREFIX CACHE (IDEAL / SERVER)',
    ],
    a.steps.map(stepRow),
  );
  doc.p(sentences(
    (a.trace
      ? 'AGENT STEP is a model call and the recorded gap after it (tools and thinking); '
      : 'AGENT STEP is a model call and the tools or sub-agents it waited for; ') +
      'WAITING ON THE MODEL is the share of a session with one of its calls running.',
    'The ideal prefix cache is what the workload lets a cache serve (every repeated token, the shared prefix from ' +
      "the step's second call on); the server keeps whole blocks and evicts, so it serves less.",
  ));
  const shown = focusStep(a);
  if (shown) byGroupTables(doc, shown);
  return doc.blocks;
}

/** How the bench searched the steps (plan agentic.search). */
function searchWords(search: NonNullable<AgenticReport['search']>): string[] {
  return [
    `The steps were searched, not a fixed ladder: from ${plural(search.startAgents, 'agent')}, climbing until a ` +
      'tier broke, then narrowing every tier between its last passing and first failing step to one agent below ' +
      `${search.exactBelow} and to ${search.resolutionPercent}% above, up to ${plural(search.maxAgents, 'agent')}; ` +
      'each step, a k6 run of its own, judged every tier at once.',
  ];
}

/** The steps the client limited: shown, judging no tier (a search measured each again). */
function clientWords(tiers: readonly TierCapacity[], searched: boolean): string[] {
  const limited = [...new Set(tiers.flatMap((t) => t.clientBound))];
  if (limited.length === 0) return [];
  return [
    `The client limited the steps of ${limited.join(', ')} agents: they are shown but judge no tier` +
      (searched ? ' (the search measured each again, and ended where one was limited twice)' : '') +
      ', and a tier no clean step broke below them is undetermined above its last clean step.',
  ];
}

/** What the generator's agents do. */
function generatorWords(m: AgenticReport['model']): string[] {
  return [
    `Each agent runs sessions of ${plural(m.turns, 'user turn')}; a turn is a loop of ` +
      `${m.toolLoopDepth.min}-${m.toolLoopDepth.max} model calls that ask for ` +
      `${m.parallelToolCalls.min}-${m.parallelToolCalls.max} tools at once ` +
      `(tool time ${thinkPhrase(m.toolLatency)}), or now and then for sub-agents, then a final answer; ` +
      `between turns the user thinks (${thinkPhrase(m.thinkTime)}).`,
    'Every call sends the whole conversation with its tool calls and results, after a system prompt and tool ' +
      'catalog all agents share.',
  ];
}

/** What a replay's agents do: the recorded sessions, whole and in order. */
function replayWords(t: NonNullable<AgenticReport['trace']>): string[] {
  const s = t.summary;
  const dropped = s.badRows > 0 ? ` (${plural(s.badRows, 'bad row')} left out)` : '';
  return [
    `Each agent replays recorded sessions of the ${s.format} trace ${basename(t.file)}: ` +
      `${plural(s.sessions, 'session')} of ${plural(s.calls, 'model call')}${dropped}, one after another, ` +
      'each call of its recorded prompt and output lengths after the tool and think time the recording left before it.',
    s.blocks === 'hash_ids'
      ? `Prompts share blocks as the trace's hash_ids say (ideal prefix cache: ${fmtPct(s.idealCachedShare)}).`
      : "The trace has no hash_ids: a session's calls share their prompts' leading blocks.",
  ];
}

function basename(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}

function tierRow(t: TierCapacity, gate: string | null): string[] {
  const shown = t.interval && t.kind !== 'untested' ? formatInterval(t.interval) : null;
  const interval = shown !== null && shown !== tierDisplay(t) ? ` (${shown})` : '';
  return [
    t.tier.id === gate ? `${t.tier.id} (gate)` : t.tier.id,
    t.labels.join(', '),
    `${tierDisplay(t)}${interval}`,
    t.brokenBy.length > 0 ? `${t.brokenBy.join(', ')}, at ${t.firstFail}`
      : t.kind === 'undetermined' ? `none measured (the client limited ${[...new Set(t.clientBound)].join(', ')})`
        : 'none',
    fmtTokS(t.throughputAtCapacity, 0),
    t.steps.map((s) => `${s.agents}${s.ok ? '' : '✗'}`).join(' '),
  ];
}

function stepRow(s: AgenticStep): string[] {
  const mean = (d: AgenticStep['sessionTime'], f: (v: number) => string) => (d ? f(d.mean) : 'n/a');
  return [
    fmtInt(s.agents),
    s.failed > 0 ? `${fmtInt(s.calls)} (${fmtInt(s.failed)} failed)` : fmtInt(s.calls),
    fmtMs(s.ttftP90Ms),
    fmtTokS(s.speedP25),
    fmtTokS(s.throughput, 0),
    s.stepTime ? `${fmtMs(s.stepTime.p50)} / ${fmtMs(s.stepTime.p95)}` : 'n/a',
    mean(s.sessionTime, fmtMs),
    mean(s.sessionTokens, (v) => fmtInt(Math.round(v))),
    mean(s.modelShare, (v) => fmtPct(v, 0)),
    `${fmtPct(s.idealHitRate, 0)} / ${fmtPct(s.serverHitRate, 0)}`,
  ];
}

/** The step the by-turn tables show: the gate tier's capacity, else the first tier's that has one, else the first. */
function focusStep(a: AgenticReport): AgenticStep | null {
  const tiers = [...a.tiers].sort((x, y) => Number(y.tier.id === a.gateTier) - Number(x.tier.id === a.gateTier));
  const at = tiers.find((t) => t.capacity !== null)?.capacity;
  return a.steps.find((s) => s.agents === at) ?? a.steps[0] ?? null;
}

function byGroupTables(doc: DocBuilder, s: AgenticStep): void {
  const rows = (groups: readonly TtftGroup[]) =>
    groups.map((g) => [g.group, fmtInt(g.calls), fmtMs(g.meanMs), fmtMs(g.p95Ms)]);
  doc.h(3, `TTFT by turn and by prompt size, at ${plural(s.agents, 'agent')}`);
  doc.table(['TURN', 'CALLS', 'TTFT (MEAN)', 'TTFT P95'], rows(s.ttftByTurn));
  doc.table(['PROMPT SIZE (UP TO)', 'CALLS', 'TTFT (MEAN)', 'TTFT P95'], rows(s.ttftByContext));
}
