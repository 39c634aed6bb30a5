// The methodology, from the run and its plans: engine, target, requests, limits, parts, definitions. Runs in Node.

import { DocBuilder, lit, type Block } from '../document';
import { fmtInt, fmtPct, fmtSec, fmtTokens } from '../format';
import { CPU_SHARE_LIMIT, READ_TOGETHER_LIMIT } from '../../analysis/client-bound';
import type { RunInfo } from '../inputs';
import type { PartSummary, Report } from '../report-types';
import { engineLabel, prefixGroupsPhrase, statName } from '../phrases';
import { capacityMethod } from './use-case-guidance';
import { endpointPath, maxTokensField } from '../../lib/request';

/** How the run was made and how its figures are defined, one list item per fact. */
export function methodologySection(report: Report): Block[] {
  const doc = new DocBuilder();
  doc.h(2, 'Methodology');
  doc.list([
    ...runItems(report),
    ...requestItems(report),
    report.predicted ? predictionItem() : measurementItem(),
    ...limitItems(report),
    ...report.parts.map((part) => partItem(part, report.predicted !== null)),
    `Definitions: ${DEFINITIONS.join('; ')}.`,
  ]);
  const version = `report.json schema version ${report.schemaVersion}`;
  doc.p(`Generated ${report.generatedAt} by k6-llm-capacity report (${version}).`);
  return doc.blocks;
}

/** Engine, target, tokenizer and command from run.json; without it, the first plan's target and what is unrecorded. */
function runItems(report: Report): string[] {
  const run = report.run;
  if (!run) {
    const target = report.parts[0]!.target;
    return [
      `Target: ${lit(target.model)} at ${lit(target.baseUrl)}. ` +
        'No run.json was found, so the engine, its version and the tokenizer are not recorded.',
    ];
  }
  const engine = run.engine === 'virtual'
    ? `none, predicted by ${lit(run.engineVersion)}`
    : engineLabel(run, "the suite's local runner", ' (k6 bundles on Node)');
  const profile = run.target.simProfile ? ` (profile ${lit(run.target.simProfile)})` : '';
  const simulated = run.engine === 'virtual'
    ? ` — a name only: no server answered, the simulator's model${profile} predicted it`
    : run.target.simulated ? ` — the suite's simulated server${profile}, not real hardware` : '';
  const interrupted = run.interrupted ? ' (interrupted)' : '';
  const items = [
    `Engine: ${engine}; run ${lit(run.runId)} from ${lit(run.startedAt)} to ${lit(run.endedAt)}${interrupted}.`,
    `Target: ${lit(run.target.model)} at ${lit(run.target.baseUrl)}${simulated}.`,
    `Tokenizer used to build exact-length prompts: ${lit(run.tokenizer)}.`,
  ];
  if (run.fittedPrompts.length > 0) items.push(fittedPromptsItem(run.fittedPrompts, run.contextWindow));
  if (run.command.length > 0) items.push(`Command: \`${run.command.join(' ').replace(/[`\r\n]/g, ' ')}\`.`);
  return items;
}

/** Why the longest contexts sent shorter prompts than their names say. */
function fittedPromptsItem(fitted: RunInfo['fittedPrompts'], window: number | null): string {
  const each = fitted.map((f) => `${fmtTokens(f.contextTokens)} cells sent ${fmtInt(f.promptTokens)}-token prompts`);
  const windowText = window !== null ? `${fmtInt(window)}-token ` : '';
  return (
    `Context window: the server's ${windowText}window holds the prompt and the output asked, so ${each.join(', ')} ` +
    '(the window less their output tokens); the cells keep their context names, as in the published grids.'
  );
}

/** What every request looked like: API and sampling, how its output length was forced, its prompt mode. */
function requestItems(report: Report): string[] {
  const target = report.parts[0]!.target;
  const api = `/v1${endpointPath(target.api)}`;
  const seed = target.seed !== null ? `, seed ${target.seed}` : '';
  const forcedOnlyBy = !target.ignoreEos && !target.minTokens ? ' only (the model may stop early)' : '';
  const flags = `${target.ignoreEos ? ' + ignore_eos' : ''}${target.minTokens ? ' + min_tokens' : ''}`;
  const forcing = `${maxTokensField(target.api)}${flags}${forcedOnlyBy}`;
  const modes = [...new Set(report.parts.map((part) => {
    if (part.prefixGroups !== null)
      return `${prefixGroupsPhrase(part.prefixGroups)}, then a suffix per request (measures the prefix cache)`;
    return part.promptMode === 'unique'
      ? 'unique prefix per request (prefix caching cannot hide prefill)'
      : 'shared prefix (measures a warm prefix cache)';
  }))];
  return [
    `API: ${api}, streaming, temperature ${target.temperature}${seed}, ` +
      `request timeout ${target.requestTimeoutSeconds}s.`,
    `Output length forcing: ${forcing}. Output token counts ${describeTokenSources(report)}.`,
    `Prompt mode: ${modes.join('; ')}.`,
  ];
}

/** Who timed the tokens, and what the client-bound check looks at (analysis/client-bound.ts). */
function measurementItem(): string {
  return (
    'Measurement: k6 set the load; every request went through the measuring agent, a process of its own beside k6, ' +
    "which opened it, stamped each token with the kernel's receive time of its bytes (on 64-bit Linux; elsewhere the " +
    "time the agent read them) and returned the request's figures. A cell is marked client-bound, and no capacity " +
    `stands on it, when the agent, its read lag p99 half a gap or more, read ${fmtPct(READ_TOGETHER_LIMIT, 0)} or ` +
    `more of its tokens together with the chunk before them (the server's own multi-token chunks apart) or used ` +
    `${fmtPct(CPU_SHARE_LIMIT, 0)} of its ` +
    "cores; a late read alone costs nothing, as each token keeps its kernel time. k6's own CPU is not measured and " +
    'not part of that check: the agent timestamps tokens itself, so a busy k6 delays request starts (the load ' +
    'delivered, in Client Integrity), not token times.'
  );
}

/** A predicted run's counterpart of measurementItem: what stood in for the load generator, the server and the clock. */
function predictionItem(): string {
  return (
    "Prediction: no load generator and no server. The bench's own Driver and step source issued every request, as in " +
    "a measured run, to the simulator's batcher in virtual time; each request's figures come from the batcher's " +
    'token times, and nothing timed a client (docs/guides/what-if.md).'
  );
}

// A Map, not an object: a source is a tag value from the CSV and must not reach Object.prototype.
const TOKEN_SOURCES: ReadonlyMap<string, string> = new Map([
  ['usage', "the server's usage field"],
  ['chunks', 'counting stream chunks (the server sent no usage)'],
  ['mixed', 'usage in some requests and chunk counts in others'],
]);

function describeTokenSources(report: Report): string {
  const recorded = report.cells.map((cell) => cell.tokenSource).filter((source): source is string => source !== null);
  const sources = new Set(recorded);
  if (sources.size === 0) return 'were not recorded (no token samples)';
  return `came from ${[...sources].map((source) => TOKEN_SOURCES.get(source) ?? source).join('; ')}`;
}

/** The statistic and limits that capacities and bursts were judged by, and how capacity was searched. */
function limitItems(report: Report): string[] {
  const stat = report.limitStat;
  const minSuccessRate = report.options.minSuccessRate;
  const minSuccess = minSuccessRate ? `; capacity steps also need ${fmtPct(minSuccessRate)} successful requests` : '';
  const burst = `burst limit TTFT <= ${fmtSec(report.burstTtftLimitMs)}`;
  const statistic = `the ${statName(stat)} of each cell ("${stat}" in k6 threshold expressions)`;
  const goodput = report.useCases.flatMap((capacity) => capacity.limits).find((limit) => limit.metric === 'goodput');
  const judged = goodput
    ? `; capacity steps also need goodput >= ${fmtPct(goodput.value)}: that share of requests met every limit of ` +
      'the use case on their own TTFT, decode speed and e2e (llm_goodput, judged per request by the measuring agent)'
    : '';
  const items = [`Limit statistic: ${statistic}; ${burst}${minSuccess}${judged}.`];
  if (report.useCases.length > 0) items.push(`Capacity: ${capacityMethod(report)}`);
  return items;
}

/** One part: cells measured, how they were scheduled, how long it ran, its samples and monitor. */
function partItem(part: PartSummary, predicted: boolean): string {
  const seconds = Math.round(part.plannedSeconds);
  const schedule = part.driven
    ? `back to back as the bench handed out each request, ${seconds}s`
    : `planned ${seconds}s in k6 time slots`;
  const ran = part.testRunDurationMs !== null ? `, ran ${(part.testRunDurationMs / 1000).toFixed(0)}s` : '';
  const monitor = part.monitorEnabled ? `every ${part.monitorIntervalSeconds}s` : 'off';
  const files = part.hasSummary ? '' : '; no summary.json';
  const measured = `${part.cellsWithData} of ${part.cells} cells measured, ${schedule}${ran}`;
  // A predicted part's samples never were a CSV (report/predicted-samples.ts).
  const rows = `${fmtInt(part.csvRows)} ${predicted ? 'predicted samples' : 'CSV rows'}`;
  const plan = `${part.script}, plan "${part.planName}"`;
  return `Part ${part.name} (${plan}): ${measured}; ${rows}; server monitor ${monitor}${files}.`;
}

const DEFINITIONS = [
  'TTFT = request start to first generated token',
  'ITL = one sample per token after the first',
  'TPOT = (e2e - TTFT) / (output tokens - 1)',
  'decode speed = (output tokens - 1) / (e2e - TTFT)',
  'prefill speed = input tokens / TTFT',
  'system throughput = output tokens / cell wall time',
  'scaling efficiency = throughput(N) / (N x throughput(1))',
  'server queue wait = Δ histogram sum / Δ histogram count over the cell window',
];
