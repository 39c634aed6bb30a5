// The simulator's options, as startSim takes them and scripts/sim.ts builds them from flags, and their check.
// Runs in Node.

import { createSecureContext } from 'node:tls';
import type { Fault } from './faults';
import type { NoiseRequest } from './noise';
import type { Flavour, Profile, ProfileOverrides } from './profiles';

export interface FixedTiming {
  /** Time to first token from request arrival, ms. */
  readonly ttftMs: number;
  /** Gap between tokens, ms. */
  readonly itlMs: number;
}

export interface SimOptions {
  /**
   * Built-in profile name or letter, path to a JSON profile, a Profile, or overrides of a base profile; default profile
   * A.
   */
  readonly profile?: string | Profile | ProfileOverrides;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** When set, /v1/* requires `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** Waiting requests beyond this are refused with 429 and Retry-After. */
  readonly maxQueue?: number;
  /** Response and metric style; default: the profile's. */
  readonly flavour?: Flavour;
  /** Record per-token emission times (GET /debug/ground-truth, groundTruth()). */
  readonly groundTruth?: boolean;
  /** Server-wide faults (each with its probability), as parsed faults or a spec string. */
  readonly faults?: readonly Fault[] | string;
  /** Fixed timing instead of the performance model. */
  readonly fixed?: FixedTiming;
  /** Tokens per SSE chunk (SGLang stream interval); default: the profile's (1). */
  readonly streamInterval?: number;
  /**
   * A reasoning model: every answer thinks for this many tokens (at most its max_tokens) before its content, on each
   * API as that API streams thinking; usage counts them among the output tokens and says how many. Default 0.
   */
  readonly reasoningTokens?: number;
  /** Tokenizer worker threads (default 2). */
  readonly tokenizerWorkers?: number;
  /**
   * Automatic prefix caching (default true, as vLLM v1); false = vLLM's --no-enable-prefix-caching. No effect in fixed
   * timing.
   */
  readonly prefixCache?: boolean;
  /** Serve HTTPS with this PEM key and certificate (chain) instead of plain HTTP. */
  readonly tls?: SimTls;
  /**
   * Step-time noise (sim/noise.ts): true = the profile's noise model or the defaults, an object = those fields
   * changed, false = off even if the profile has noise. Default: the profile's (off in every built-in profile).
   * Not with fixed timing.
   */
  readonly noise?: NoiseRequest;
  /** Seed of the noise draws (turns noise on); default a random one, shown in `noise.seed`. */
  readonly noiseSeed?: number;
}

export interface SimTls {
  /** PEM private key. */
  readonly key: string | Buffer;
  /** PEM certificate, optionally followed by its intermediates. */
  readonly cert: string | Buffer;
}

/** Throws on options no server can run with. */
export function checkOptions(options: SimOptions): void {
  if (options.fixed && (!(options.fixed.ttftMs >= 0) || !(options.fixed.itlMs >= 0)))
    throw new Error('fixed timing needs ttftMs >= 0 and itlMs >= 0');
  if (options.maxQueue !== undefined && !(options.maxQueue >= 0)) throw new Error('maxQueue must be >= 0');
  const reasoning = options.reasoningTokens;
  if (reasoning !== undefined && !(Number.isInteger(reasoning) && reasoning >= 0))
    throw new Error('reasoningTokens must be a whole number >= 0');
  if (options.fixed && ((options.noise !== undefined && options.noise !== false) || options.noiseSeed !== undefined))
    throw new Error('noise needs the performance model: fixed timing has no steps to jitter');
  if (options.tls) {
    // Bad PEM fails here, before any worker starts.
    try {
      createSecureContext({ key: options.tls.key, cert: options.tls.cert });
    } catch (e) {
      throw new Error(`tls: ${(e as Error).message}`);
    }
  }
}
