// Use cases and their limits as data, plus the mix profiles and the context grid. Runs in k6 and Node.
//
// The five use cases and their limits are those of the published capacity reports whose figures
// docs/design/simulator-model.md lists under "Calibration targets" (Qwen3-Coder-30B-A3B on 1x H200, vLLM). MLPerf's
// LLM limits are opt-in use cases beside them (docs/reference/use-cases.md).

/**
 * The request metrics a limit may be on, by their keys in lib/metrics.ts's table (which imports this list and
 * checks that each is one of its metrics): thresholds/ is data, and imports nothing from lib/. ttfc is the time to
 * the first content token, the answer's, not the thinking's (reasoning models).
 */
export const LIMIT_METRICS = ['ttft', 'ttfc', 'e2e', 'decodeSpeed', 'itl', 'tpot'] as const;
export type LimitMetric = (typeof LIMIT_METRICS)[number];

/**
 * Which per-cell statistic a limit is checked on (the plan's limitStat, or a limit's own). Here, beside the limits,
 * so that the plan's modules, which read the use cases, are not read back by them.
 */
export const LIMIT_STATS = ['avg', 'med', 'p(90)', 'p(95)', 'p(99)'] as const;
export type LimitStat = (typeof LIMIT_STATS)[number];

/** One limit of a use case: "the per-request <metric> averaged over a cell must satisfy <op> <value>". */
export interface UseCaseLimit {
  /** Which request metric the limit is on. */
  readonly metric: LimitMetric;
  readonly operator: '<' | '<=' | '>' | '>=';
  /** In the metric's unit: ms for times, tokens/s for speeds. */
  readonly value: number;
  /** Short human label, e.g. "TTFT < 8 s", "TTFT p99 < 2 s". */
  readonly label: string;
  /**
   * The statistic of a cell's requests the limit is checked on, as MLPerf states its limits (p99 TTFT and TPOT);
   * absent: the plan's limitStat.
   */
  readonly stat?: LimitStat;
}

const METRIC_NAMES: Readonly<Record<UseCaseLimit['metric'], string>> = {
  ttft: 'TTFT', ttfc: 'TTFC', e2e: 'e2e', decodeSpeed: 'speed', itl: 'ITL', tpot: 'TPOT',
};

/**
 * The label a limit is shown with, from its metric, operator and value: "TTFT < 8 s", "speed > 15 tok/s", "ITL < 70
 * ms".
 */
export function limitLabel(
  metric: UseCaseLimit['metric'], operator: UseCaseLimit['operator'], value: number, stat?: LimitStat,
): string {
  const name = stat ? `${METRIC_NAMES[metric]} ${STAT_LABELS[stat]}` : METRIC_NAMES[metric];
  if (metric === 'decodeSpeed') return `${name} ${operator} ${value} tok/s`;
  const shown = value >= 1000 && value % 100 === 0 ? `${value / 1000} s` : `${value} ms`;
  return `${name} ${operator} ${shown}`;
}

/** How a label names a limit's own statistic. */
const STAT_LABELS: Readonly<Record<LimitStat, string>> = {
  avg: 'mean', med: 'median', 'p(90)': 'p90', 'p(95)': 'p95', 'p(99)': 'p99',
};

/** A limit with its label derived, so the label can never disagree with the value. */
function limit(
  metric: UseCaseLimit['metric'], operator: UseCaseLimit['operator'], value: number, stat?: LimitStat,
): UseCaseLimit {
  const label = limitLabel(metric, operator, value, stat);
  return stat ? { metric, operator, value, label, stat } : { metric, operator, value, label };
}

export interface UseCase {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly contextTokens: number;
  readonly outputTokens: number;
  readonly limits: readonly UseCaseLimit[];
  /** The concurrency ladder the capacity script climbs by default. */
  readonly concurrencies: readonly number[];
}

export const USE_CASES: readonly UseCase[] = [
  {
    id: 'code_completion',
    title: 'Code Completion',
    description: 'Inline code suggestions in IDEs. 128 output tokens; the key metric is end-to-end latency, not TTFT.',
    contextTokens: 1024,
    outputTokens: 128,
    limits: [limit('e2e', '<', 2000)],
    concurrencies: [1, 2, 4, 8, 16, 24, 32, 48, 64, 100],
  },
  {
    id: 'short_chatbot',
    title: 'Short-form Chatbot',
    description: 'Quick conversational exchanges: support queries, simple Q&A. 10+ tok/s is acceptable for reading ' +
      'streamed replies.',
    contextTokens: 8192,
    outputTokens: 1024,
    limits: [
      limit('ttft', '<', 10_000),
      limit('decodeSpeed', '>', 10),
    ],
    concurrencies: [1, 8, 16, 32, 48, 64, 100, 125],
  },
  {
    id: 'general_chatbot',
    title: 'General Chatbot',
    description: 'ChatGPT-style multi-turn chat with 32K context.',
    contextTokens: 32_768,
    outputTokens: 1024,
    limits: [
      limit('ttft', '<', 8000),
      limit('decodeSpeed', '>', 15),
    ],
    concurrencies: [1, 2, 4, 8, 12, 15, 21, 32],
  },
  {
    id: 'long_document',
    title: 'Long Document Processing',
    description: 'Summarising reports and contracts: 64K context. Users tolerate slower TTFT but speed must stay ' +
      'above reading speed.',
    contextTokens: 65_536,
    outputTokens: 1024,
    limits: [
      limit('ttft', '<', 12_000),
      limit('decodeSpeed', '>', 15),
    ],
    concurrencies: [1, 2, 3, 5, 7, 10],
  },
  {
    id: 'coding_assistant',
    title: 'Automated Coding Assistant',
    description: 'Agentic coding over a large slice of a repository: 96K context.',
    contextTokens: 98_304,
    outputTokens: 1024,
    limits: [
      limit('ttft', '<', 12_000),
      limit('decodeSpeed', '>', 20),
    ],
    concurrencies: [1, 2, 4, 6, 8],
  },
];

/**
 * MLPerf Inference's datacenter LLM limits (docs/reference/use-cases.md): p99 TTFT and p99 TPOT, standard and
 * interactive. Opt-in by id (a plan's `useCases`, the environment's USE_CASES), never in the default list, so the
 * default bench stays the reports' five.
 *
 * Lengths as MLPerf states them (docs/reference/use-cases.md gives each source). MLPerf states no mean input length in
 * the sources found, so the input is its bound: every request then prefills as much as MLPerf's longest, a harder TTFT
 * than its average request. llama2-70b's output is the reference's mean (294.45 tokens per sample); llama3.1-8b's is
 * its max_tokens, which most of its reference outputs reach.
 */
function mlperfUseCase(
  id: string, title: string, lengths: { input: number; output: number; source: string },
  limitsMs: { ttft: number; tpot: number }, concurrencies: readonly number[],
): UseCase {
  return {
    id,
    title,
    description:
      `MLPerf Inference datacenter ${title.replace(/^MLPerf /, '')}, Server scenario: p99 TTFT < ${limitsMs.ttft} ms ` +
      `and p99 TPOT < ${limitsMs.tpot} ms. ${lengths.source}`,
    contextTokens: lengths.input,
    outputTokens: lengths.output,
    limits: [limit('ttft', '<', limitsMs.ttft, 'p(99)'), limit('tpot', '<', limitsMs.tpot, 'p(99)')],
    concurrencies,
  };
}

const LLAMA2_70B = {
  input: 1024,
  output: 294,
  source:
    '1024 input tokens, the bound of its OpenOrca set (max_seq_len=1024), and 294 output, the reference mean ' +
    '(294.45 tokens per sample; mlcommons/inference language/llama2-70b/README.md).',
};

const LLAMA3_1_8B = {
  input: 2048,
  output: 128,
  source:
    '2048 input tokens, the bound of its CNN/DailyMail prompts (max_length 2048, language/llama3.1-8b/' +
    'PREPROCESSING.md), and 128 output, its max_tokens (SUT_VLLM.py; mlcommons/inference issue #2256).',
};

export const MLPERF_USE_CASES: readonly UseCase[] = [
  mlperfUseCase(
    'mlperf_llama2_70b', 'MLPerf Llama 2 70B', LLAMA2_70B, { ttft: 2000, tpot: 200 }, [1, 8, 16, 32, 64, 96, 128],
  ),
  mlperfUseCase(
    'mlperf_llama2_70b_interactive', 'MLPerf Llama 2 70B Interactive', LLAMA2_70B, { ttft: 450, tpot: 40 },
    [1, 4, 8, 16, 32, 48, 64],
  ),
  mlperfUseCase(
    'mlperf_llama3_1_8b', 'MLPerf Llama 3.1 8B', LLAMA3_1_8B, { ttft: 2000, tpot: 100 }, [1, 8, 16, 32, 64, 128, 256],
  ),
  mlperfUseCase(
    'mlperf_llama3_1_8b_interactive', 'MLPerf Llama 3.1 8B Interactive', LLAMA3_1_8B, { ttft: 500, tpot: 30 },
    [1, 8, 16, 32, 64, 96, 128],
  ),
];

/** Every use case a plan or USE_CASES may name by id: the default five, then the opt-in ones. */
export const NAMED_USE_CASES: readonly UseCase[] = [...USE_CASES, ...MLPERF_USE_CASES];

/** Fixed input/output profiles of the "mix" and "burst" scripts (the Qwen3.5 / H100 reports). */
export interface MixProfile {
  readonly id: string;
  readonly title: string;
  readonly contextTokens: number;
  readonly outputTokens: number;
}

export const MIX_PROFILES: readonly MixProfile[] = [
  { id: 'chatbot', title: 'Chatbot', contextTokens: 1024, outputTokens: 256 },
  { id: 'rag', title: 'RAG / QA', contextTokens: 4096, outputTokens: 256 },
  { id: 'agentic', title: 'Agentic', contextTokens: 16_384, outputTokens: 256 },
  { id: 'tool_calling', title: 'Tool Calling Agentic', contextTokens: 32_768, outputTokens: 256 },
  { id: 'chatbot_short', title: 'Chatbot (short reply)', contextTokens: 1024, outputTokens: 128 },
  { id: 'rag_long', title: 'RAG / QA (long answer)', contextTokens: 4096, outputTokens: 512 },
  { id: 'agentic_long', title: 'Agentic (long output)', contextTokens: 16_384, outputTokens: 2048 },
  { id: 'tool_calling_long', title: 'Tool Calling Agentic (long output)', contextTokens: 32_768, outputTokens: 4096 },
];

/** The context grid of the sweep reports: 1K..256K tokens. */
export const CONTEXT_GRID: readonly number[] = [1024, 8192, 32_768, 65_536, 98_304, 131_072, 262_144];

/** Burst queue depths ("when to scale up"), up to 256 simultaneous requests. */
export const BURST_DEPTHS: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** Default TTFT limit for the max safe queue depth of a burst (the reports use 3 s). */
export const BURST_TTFT_LIMIT_MS = 3000;

/** A use case from the catalogue (the built-in five and the MLPerf ones), by id. */
export function findUseCase(id: string): UseCase | undefined {
  return NAMED_USE_CASES.find((u) => u.id === id);
}

export function findMixProfile(id: string): MixProfile | undefined {
  return MIX_PROFILES.find((p) => p.id === id);
}
