// Synthetic traces in Mooncake's schema, drawn from a seeded generator: the samples in examples/traces and the
// trace-replay benchmark's and tests' traces. Runs in Node (pure apart from the caller writing the text).
//
// Nothing here comes from a real trace: arrivals are Poisson, lengths uniform, and a few "system prompts" (runs of
// hash ids) begin many requests, so prefix reuse shows.

import { mulberry32 } from '../lib/random';

export type Random = () => number;

export const between = (random: Random, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
/** An exponential gap with the given mean (Poisson arrivals); 1 - u keeps the log finite. */
export const expGap = (random: Random, mean: number): number => -mean * Math.log(1 - random());

/** Hands out hash ids no earlier prompt used. */
export function idCounter(first: number): (n: number) => number[] {
  let next = first;
  return (n) => Array.from({ length: n }, () => next++);
}

export interface SyntheticMooncake {
  readonly rows: number;
  /** Mean gap between rows, ms (Poisson arrivals). */
  readonly meanGapMs: number;
  readonly seed: number;
  /** The shared prompts' lengths in 512-token blocks; each row begins with one of them, drawn uniformly. */
  readonly prefixBlocks: readonly number[];
  /** Tokens after the shared prompt, and output tokens: uniform between the bounds. */
  readonly extraTokens: readonly [number, number];
  readonly outputTokens: readonly [number, number];
}

/** The JSONL text of a Mooncake-format trace: timestamp (ms), input_length, output_length, hash_ids. */
export function syntheticMooncake(o: SyntheticMooncake): string {
  const random = mulberry32(o.seed);
  let first = 0;
  const prefixes = o.prefixBlocks.map((n) => Array.from({ length: n }, () => first++));
  const fresh = idCounter(Math.max(100, first));
  let t = 0;
  const lines: string[] = [];
  for (let i = 0; i < o.rows; i++) {
    const prefix = prefixes[between(random, 0, prefixes.length - 1)]!;
    const input = prefix.length * 512 + between(random, o.extraTokens[0], o.extraTokens[1]);
    const ids = [...prefix, ...fresh(Math.ceil(input / 512) - prefix.length)];
    const output = between(random, o.outputTokens[0], o.outputTokens[1]);
    lines.push(JSON.stringify({ timestamp: Math.round(t), input_length: input, output_length: output, hash_ids: ids }));
    t += expGap(random, o.meanGapMs);
  }
  return lines.join('\n') + '\n';
}
