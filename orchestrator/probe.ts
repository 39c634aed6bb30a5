// Measures a real target's single-request prefill and decode speed before a run, so cell time slots fit that target.
// Runs in Node.
//
// The probe reads no tokens: it sends non-streaming requests and times whole answers, whose `usage`
// says how many tokens they held. The one stream reader is the measuring agent's (agent/, Go).

import { buildRequestBody, buildHeaders, endpointPath, errorMessageForResults } from '../lib/request';
import type { TargetConfig } from '../lib/plan';
import type { PromptSet } from '../lib/prompt-set';
import { requestPrefix } from '../lib/prompt-text';

export interface ProbedSpeeds {
  /** Single-request prefill speed at `prefillContextTokens`, tokens/s (input tokens / time to a one-token answer). */
  readonly prefillTokensPerSecond: number;
  readonly prefillContextTokens: number;
  /** Single-request decode speed, tokens/s. */
  readonly decodeTokensPerSecond: number;
}

interface TimedAnswer {
  readonly ms: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** One non-streaming request: its wall time and the server's usage. Throws with the server's words when it fails. */
async function timedAnswer(
  target: TargetConfig, prompt: string, maxTokens: number, apiKey: string | null,
): Promise<TimedAnswer> {
  const body: Record<string, unknown> = { ...buildRequestBody(target, { prompt, maxTokens }), stream: false };
  delete body.stream_options;
  const headers = { ...buildHeaders(apiKey, target.api), Accept: 'application/json' };
  const url = target.baseUrl + endpointPath(target.api);
  const started = performance.now();
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST', headers, body: JSON.stringify(body),
      signal: AbortSignal.timeout(target.requestTimeoutSeconds * 1000),
    });
    text = await res.text();
  } catch (e) {
    const reason = errorMessageForResults((e as Error).message, apiKey, 200);
    throw new Error(`probe request to ${target.baseUrl} failed: ${reason}`);
  }
  const ms = performance.now() - started;
  if (res.status !== 200)
    throw new Error(
      `probe request to ${target.baseUrl} failed: HTTP ${res.status}: ${errorMessageForResults(text, apiKey, 200)}`,
    );
  let usage: Record<string, unknown> | undefined;
  try {
    usage = (JSON.parse(text) as { usage?: Record<string, unknown> }).usage;
  } catch {
    // Reported below as an answer without usage.
  }
  const { promptTokens, completionTokens } = usageCounts(usage ?? {});
  if (!Number.isFinite(promptTokens) || !Number.isFinite(completionTokens)) {
    throw new Error(`probe request to ${target.baseUrl} answered without usage token counts; give the plan's ` +
      'schedule speeds instead');
  }
  return { ms, promptTokens, completionTokens };
}

const count = (v: unknown): number => (typeof v === 'number' ? v : NaN);

/**
 * An answer's prompt and output tokens, as each API names them: prompt_tokens and completion_tokens (chat,
 * completions), input_tokens and output_tokens (Responses, Messages; Anthropic counts the prompt tokens its cache
 * read or wrote apart from input_tokens). NaN where the usage has none.
 */
export function usageCounts(usage: Record<string, unknown>): { promptTokens: number; completionTokens: number } {
  if (usage.prompt_tokens !== undefined || usage.completion_tokens !== undefined)
    return { promptTokens: count(usage.prompt_tokens), completionTokens: count(usage.completion_tokens) };
  const cache = (count(usage.cache_read_input_tokens) || 0) + (count(usage.cache_creation_input_tokens) || 0);
  return { promptTokens: count(usage.input_tokens) + cache, completionTokens: count(usage.output_tokens) };
}

/**
 * Decode speed from answers to the shortest prepared prompt, 1 and 65 tokens long: the extra tokens over the extra
 * time (the prefill both share cancels out). The one-token answer is timed before and after the long one and the
 * faster kept: the first request also opens the connection, and on a loaded machine it read 180 ms late, which took
 * that time off the long answer's extra and put decode at 2.3 times the served speed (CI, 2026-12-06); slots sized
 * from too fast a speed end before their requests do, while too slow a one only lengthens them. Prefill speed from a
 * one-token answer to the longest prepared prompt up to 32K tokens: prompt tokens over its time (at longer contexts
 * attention makes prefill slower still, which the slot safety factor absorbs). Throws with the server's error when a
 * probe fails, since the run itself would fail the same way.
 */
export async function probeSpeeds(
  target: TargetConfig, prompts: PromptSet, apiKey: string | null,
): Promise<ProbedSpeeds> {
  const sorted = [...prompts.prompts].sort((a, b) => a.contextTokens - b.contextTokens);
  const shortest = sorted[0]!;
  const forPrefill = [...sorted].reverse().find((p) => p.contextTokens <= 32_768) ?? shortest;
  const nonce = Math.floor(Math.random() * 1_000_000);
  const prefix = (i: number) => requestPrefix('unique', nonce, 0, i);
  const oneBefore = await timedAnswer(target, prefix(1) + shortest.body, 1, apiKey);
  const many = await timedAnswer(target, prefix(2) + shortest.body, 65, apiKey);
  const oneAfter = await timedAnswer(target, prefix(4) + shortest.body, 1, apiKey);
  const one = oneAfter.ms < oneBefore.ms ? oneAfter : oneBefore;
  const extraTokens = many.completionTokens - one.completionTokens;
  const extraMs = many.ms - one.ms;
  if (extraTokens <= 0 || extraMs <= 0) {
    throw new Error(
      `probe requests to ${target.baseUrl} gave no decode speed (${extraTokens} more tokens in ` +
      `${extraMs.toFixed(1)} ms more); give the plan's schedule speeds instead`,
    );
  }
  const prefill = await timedAnswer(target, prefix(3) + forPrefill.body, 1, apiKey);
  return {
    prefillTokensPerSecond: (prefill.promptTokens * 1000) / prefill.ms,
    prefillContextTokens: forPrefill.contextTokens,
    decodeTokensPerSecond: (extraTokens * 1000) / extraMs,
  };
}
