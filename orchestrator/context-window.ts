// The server's context window, and the prompt lengths that fit it. Runs in Node.
//
// The published grids name a 256K context and ask 1,024 output tokens of a model whose window is
// 262,144 tokens: a 262,144-token prompt would be refused (HTTP 400). Like the reports, a cell keeps
// its context's name and sends the longest prompt that fits: the window less the output it asks.

import { PlanError, type Cell } from '../lib/plan';
import { buildHeaders } from '../lib/request';

/** A context whose cells' prompts were shortened to fit the window. */
export interface FittedContext {
  readonly contextTokens: number;
  readonly promptTokens: number;
}

/**
 * For each context whose longest-output cell would overflow `window` (prompt + max_tokens), the prompt length that
 * fits: window less that output. Contexts that fit are absent. Throws when that would cut a prompt below half its
 * context: the plan, not the prompt, should change then.
 */
export function promptLengthsForWindow(
  cells: readonly Pick<Cell, 'contextTokens' | 'outputTokens'>[], window: number,
): FittedContext[] {
  const maxOutput = new Map<number, number>();
  for (const c of cells) maxOutput.set(c.contextTokens, Math.max(maxOutput.get(c.contextTokens) ?? 0, c.outputTokens));
  const fitted: FittedContext[] = [];
  for (const [contextTokens, output] of [...maxOutput].sort((a, b) => a[0] - b[0])) {
    if (contextTokens + output <= window) continue;
    const promptTokens = window - output;
    if (promptTokens < contextTokens / 2)
      throw new PlanError(
        `cells of context ${contextTokens} ask ${output} output tokens, but the server's window is ${window} tokens: ` +
        `lower the plan's contexts or output tokens`,
      );
    fitted.push({ contextTokens, promptTokens });
  }
  return fitted;
}

/**
 * The context window the server states for `model` in GET {baseUrl}/models (`max_model_len`, as vLLM, SGLang and the
 * simulator answer), or null when it states none or cannot be asked: the cells are then sent as planned.
 */
export async function readContextWindow(baseUrl: string, model: string, apiKey: string | null): Promise<number | null> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, {
      headers: { ...buildHeaders(apiKey), Accept: 'application/json' }, signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { data?: { id?: unknown; max_model_len?: unknown }[] };
    const models = Array.isArray(body.data) ? body.data : [];
    const entry = models.find((m) => m.id === model) ?? (models.length === 1 ? models[0] : undefined);
    const window = entry?.max_model_len;
    return typeof window === 'number' && Number.isInteger(window) && window > 0 ? window : null;
  } catch {
    // An unreachable server fails the run's own requests with its error; here it only means "window unknown".
    return null;
  }
}
