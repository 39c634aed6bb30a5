// What the samples of the sessions script add: every request's span (per part), and a cell's measured turns by turn.
// Runs in Node. read-samples.ts hands it each request sample tagged with a turn.

import { SAMPLE_TAGS } from '../lib/metrics';
import { FloatList } from './stats';

/** The measured requests of one turn of a cell's conversations. */
export interface TurnAccumulator {
  readonly ttft: FloatList;
  inputTokens: number;
  /** usage.prompt_tokens_details.cached_tokens summed, and how many requests reported it (llm_cached_tokens). */
  cachedTokens: number;
  cachedReported: number;
}

/**
 * Every request of a part's sessions steps with an e2e sample, in any phase and of any step, as [start, end] epoch ms:
 * what was in flight while a step measured, the requests its users started in the step before included (they ran
 * into it as that step's transition). A failed request has no e2e sample and is left out.
 */
export interface RequestSpans {
  readonly starts: FloatList;
  readonly ends: FloatList;
}

export function newRequestSpans(): RequestSpans {
  return { starts: new FloatList(256), ends: new FloatList(256) };
}

/** A sessions cell's measured requests by `turn` tag. */
export interface SessionAccumulator {
  readonly turns: Map<string, TurnAccumulator>;
}

export function newSessionAccumulator(): SessionAccumulator {
  return { turns: new Map() };
}

/** One request sample of a sessions cell (it has a turn tag); `measured` says whether its phase enters statistics. */
export function addSessionSample(
  acc: SessionAccumulator, spans: RequestSpans, key: string, tags: Readonly<Record<string, string>>,
  timestampMs: number, value: number, measured: boolean,
): void {
  if (key === 'e2e') {
    spans.starts.push(timestampMs - value);
    spans.ends.push(timestampMs);
  }
  if (!measured) return;
  const tag = tags[SAMPLE_TAGS.turn]!;
  let turn = acc.turns.get(tag);
  if (turn === undefined) {
    turn = { ttft: new FloatList(64), inputTokens: 0, cachedTokens: 0, cachedReported: 0 };
    acc.turns.set(tag, turn);
  }
  if (key === 'ttft') turn.ttft.push(value);
  else if (key === 'inputTokens') turn.inputTokens += value;
  else if (key === 'cachedTokens') {
    turn.cachedTokens += value;
    turn.cachedReported++;
  }
}
