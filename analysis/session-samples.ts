// What the samples of the sessions script add: a cell's measured turns by turn. Runs in Node. read-samples.ts hands
// it each request sample tagged with a turn; every request's span it keeps for all cells (analysis/request-spans.ts).

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

/** A sessions cell's measured requests by `turn` tag. */
export interface SessionAccumulator {
  readonly turns: Map<string, TurnAccumulator>;
}

export function newSessionAccumulator(): SessionAccumulator {
  return { turns: new Map() };
}

/** One request sample of a sessions cell (it has a turn tag); `measured` says whether its phase enters statistics. */
export function addSessionSample(
  acc: SessionAccumulator, key: string, tags: Readonly<Record<string, string>>, value: number, measured: boolean,
): void {
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
