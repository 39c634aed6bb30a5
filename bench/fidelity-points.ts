// The published figures each profile is held to, one table per seed report, and their virtual-time prediction.
// Runs in Node.
//
// Shared by the HTTP fidelity bench (bench/sim-fidelity.ts) and the virtual-time fit (bench/sim-fit.ts), so
// the points are stated once. Every figure names the report it comes from (../shared/reference/reports/).

import type { Profile } from '../sim/profiles';
import { USE_CASES, type UseCaseLimit } from '../thresholds/use-cases';
import { timePerOutputTokenMs } from '../lib/request-figures';
import { mean, runVirtualBatch, runVirtualClosedLoop, type VirtualRunResult } from '../sim/virtual-run';

/** The requests' decode speeds, the one-token answers (none) left out. */
const decodeSpeeds = (run: VirtualRunResult): number[] =>
  run.requests.flatMap((r) => (r.decodeTokensPerSecond === null ? [] : [r.decodeTokensPerSecond]));
/** The requests' TPOTs, the one-token answers (none) left out. */
const tpots = (run: VirtualRunResult): number[] =>
  run.requests.flatMap((r) => timePerOutputTokenMs(r.e2eMs, r.ttftMs, r.outputTokens) ?? []);

const K = 1024;

/** power_w: peak of the lagged gauge (summed over GPUs); mean_power_w: the cell's mean power, as reports average it. */
/**
 * system_tps: output tokens / cell wall time (the Millstone reports, A, D, E). users_x_decode_tps: N x the mean
 * per-user decode speed, what the "Inference Benchmark" reports (B, C) call system throughput: their N x
 * per-user speed equals it at every published pair (B 8 x 140.2 = 1121; C 32 x 70.6 = 41% x 32 x 172.5).
 */
export type Kind =
  | 'ttft_s' | 'decode_tps' | 'system_tps' | 'users_x_decode_tps' | 'e2e_ms' | 'itl_ms'
  | 'power_w' | 'mean_power_w' | 'max_queue';

/** single: one request at a time (target 5%); load: N requests at once (median < 10%, none over 20%). */
export type PointClass = 'single' | 'load';

export interface Target {
  readonly kind: Kind;
  readonly published: number;
  readonly note?: string;
  /** Not a fit target (reported only): a burst TTFT, checked by its burst/steady-state bracket instead. */
  readonly bracketOnly?: boolean;
}

export interface Point {
  /** Profile letter, A-E. */
  readonly profile: string;
  readonly cls: PointClass;
  readonly label: string;
  readonly context: number;
  readonly concurrency: number;
  readonly output: number;
  readonly targets: readonly Target[];
  /** Takes more than ~30 s over HTTP: left out of --quick. */
  readonly slow?: boolean;
  readonly note?: string;
  /** Rounds run one after the other (averaged), for short single-request points. */
  readonly rounds?: number;
  /** Prompts every request shares (the published run sent one prompt N times): prefix cache on, shared blocks. */
  readonly sharedPrompt?: boolean;
  /** Burst TTFT limit for max_queue targets, s: the largest N whose mean burst TTFT stays within it. */
  readonly ttftLimitS?: number;
}

const single = (
  profile: string, label: string, context: number, output: number, targets: Target[], extra: Partial<Point> = {},
): Point => ({
  profile, cls: 'single', label: `${profile} ${label}`, context, concurrency: 1, output, targets, ...extra,
});
const load = (
  profile: string, label: string, context: number, concurrency: number, output: number, targets: Target[],
  extra: Partial<Point> = {},
): Point => ({
  profile, cls: 'load', label: `${profile} ${label}`, context, concurrency, output, targets, ...extra,
});

/** 256K prompts leave room for 1024 outputs in the 262,144-token window, as in the published runs. */
const CTX_256K = 256 * K - K;
const ttft = (published: number, note?: string): Target => ({ kind: 'ttft_s', published, note });
/** A TTFT under load: judged by its burst/steady-state bracket, not as a fit error. */
const burstTtft = (published: number, note?: string): Target => (
  { kind: 'ttft_s', published, note, bracketOnly: true }
);
/** An end-to-end time of a burst: reported, not a fit target. */
const burstE2e = (published: number): Target => ({ kind: 'e2e_ms', published, bracketOnly: true });
const e2e = (published: number, note?: string): Target => ({ kind: 'e2e_ms', published, note });
const dec = (published: number, note?: string): Target => ({ kind: 'decode_tps', published, note });
const sys = (published: number, note?: string): Target => ({ kind: 'system_tps', published, note });
const usersXDecode = (published: number, note?: string): Target => ({ kind: 'users_x_decode_tps', published, note });
const itl = (published: number, note?: string): Target => ({ kind: 'itl_ms', published, note });
const meanPower = (published: number, note?: string): Target => ({ kind: 'mean_power_w', published, note });
const maxQueue = (published: number, note?: string): Target => ({ kind: 'max_queue', published, note });

/** A: qwen3-coder-30b-a3b_1xH200_vllm.txt (docs/design/simulator-model.md, "Calibration targets"). */
const POINTS_A: Point[] = [
  single('A', '1K x1', K, 256, [dec(164.9), ttft(0.076), itl(6)], { rounds: 3, note: '256 of 1024 output tokens' }),
  single('A', '8K x1', 8 * K, 256, [dec(149)], { rounds: 3, note: '256 of 1024 output tokens; see (a)' }),
  single('A', '32K x1', 32 * K, 16, [ttft(1.2)], { note: '16 output tokens' }),
  single('A', '64K x1', 64 * K, 16, [ttft(3.8)], { note: '16 output tokens' }),
  single('A', '96K x1', 96 * K, 16, [ttft(7.8)], { note: '16 output tokens' }),
  single('A', '256K x1', CTX_256K, 256, [
    ttft(47.6), dec(79.9),
    { kind: 'power_w', published: 610, note: 'published peak is at 256K x4; here the peak of a 256K prefill' },
  ],
    {
    slow: true, note: 'prompt 261120 = 256K - 1024 so 1024 outputs fit the window; 256 output tokens',
  }),
  single('A', 'code 1K/128 x1', K, 128, [e2e(852)], { rounds: 3 }),
  load('A', '1K x6', K, 6, 1024, [sys(599.6)]),
  load('A', '32K x6', 32 * K, 6, 1024, [sys(238.4)], { note: 'see (c)' }),
  load('A', '8K x75', 8 * K, 75, 1024, [burstTtft(3.0, 'see (b)'), dec(25)]),
  load('A', '8K x125', 8 * K, 125, 1024, [burstTtft(4.0, 'see (b)'), dec(21)],
    { slow: true }),
  load('A', '32K x15', 32 * K, 15, 1024, [burstTtft(8.1), dec(33)]),
  load('A', '32K x21', 32 * K, 21, 1024, [burstTtft(9.5), dec(25)], { slow: true }),
  load('A', '64K x5', 64 * K, 5, 1024, [burstTtft(10.2), dec(44)]),
  load('A', '96K x2', 96 * K, 2, 1024, [burstTtft(11.4), dec(70)]),
  load('A', '96K x6', 96 * K, 6, 1024, [burstTtft(26.6), dec(25)], { slow: true }),
  load('A', 'code 1K/128 x42', K, 42, 128, [burstE2e(2009)]),
  load('A', 'code 1K/128 x100', K, 100, 128, [burstE2e(3491)]),
];

/** B: qwen3-coder-30b-a3b_1xH100-PCIe.txt. Chatbot 1K/128, RAG 4K/512, agentic 16K/2K, tool calling 32K/4K. */
const POINTS_B: Point[] = [
  single('B', 'chat 1K/128 x1', K, 128, [dec(152.9), ttft(0.03), itl(6.5)], { rounds: 3 }),
  load('B', 'chat 1K/128 x2', K, 2, 128, [ttft(0.029, 'best TTFT, "Chatbot, 2 concurrent"')],
    { sharedPrompt: true }),
  load('B', 'chat 1K/128 x8', K, 8, 128, [usersXDecode(1121), dec(140.2)],
    { sharedPrompt: true, note: 'mid concurrency row' }),
  load('B', 'chat 1K/128 x24', K, 24, 128, [usersXDecode(2961)],
    { sharedPrompt: true, note: 'peak system throughput' }),
  load('B', 'chat 1K/128 x32', K, 32, 128, [dec(59.2, 'scaling efficiency 39% at 32')],
    { sharedPrompt: true }),
  load('B', 'RAG 4K/512 x32', 4 * K, 32, 512, [usersXDecode(2614), dec(81.7)],
    { sharedPrompt: true, note: 'max concurrency row' }),
  load('B', 'tool 32K/4K x24', 32 * K, 24, 4096, [dec(38.8, 'ITL 25.8 ms')],
    { sharedPrompt: true, slow: true }),
  load('B', 'tool 32K/4K x32', 32 * K, 32, 4096, [ttft(0.97, 'worst TTFT')],
    { sharedPrompt: true, slow: true }),
];

/** C: qwen3.5-35b-a3b_1xH100.txt. 1K, 4K, 16K, 32K in / 256 out; "fastest" = N at once, "scale up" = a burst of N. */
const POINTS_C: Point[] = [
  single('C', 'chat 1K/256 x1', K, 256, [dec(172.5), ttft(0.189), itl(5.8)], { rounds: 3 }),
  load('C', 'chat 1K/256 x32', K, 32, 256, [dec(70.6, 'scaling efficiency 41% at 32')]),
  load('C', 'tool 32K/256 x32', 32 * K, 32, 256, [
    dec(13.2, 'ITL 75.8 ms'), ttft(6.18, 'worst TTFT of "When Am I the Fastest?"'),
  ],
    { slow: true }),
  load('C', 'RAG 4K/256 x128', 4 * K, 128, 256, [dec(25.7, 'ITL 38.9 ms, "When to Scale Up"')],
    { slow: true }),
  load('C', 'chat 1K/256 x256', K, 256, 256, [usersXDecode(9774), ttft(8.25, 'burst, queue depth 256')],
    { slow: true }),
  load('C', 'chat 1K/256 max queue', K, 1, 256, [maxQueue(131)], { ttftLimitS: 3 }),
  load('C', 'RAG 4K/256 max queue', 4 * K, 1, 256, [maxQueue(84)], { ttftLimitS: 3 }),
  load('C', 'agentic 16K/256 max queue', 16 * K, 1, 256, [maxQueue(19)], { ttftLimitS: 3 }),
  load('C', 'tool 32K/256 max queue', 32 * K, 1, 256, [maxQueue(8)], { ttftLimitS: 3 }),
];

/** D: qwen3-coder-next_1xH200_sglang.txt. */
const POINTS_D: Point[] = [
  single('D', '1K x1', K, 256, [dec(210.8), ttft(0.379)], { rounds: 3, note: '256 of 1024 output tokens' }),
  single('D', '256K x1', CTX_256K, 256, [ttft(20.4), dec(152.8)], { note: 'prompt 261120; 256 output tokens' }),
  load('D', '1K x10', K, 10, 1024, [sys(852.6)]),
];

/** E: qwen3-coder-next_2xRTXPro6000_sglang.txt (power is the sum over both GPUs). */
const POINTS_E: Point[] = [
  single('E', '1K x1', K, 256, [dec(153.6), ttft(0.398)], { rounds: 3, note: '256 of 1024 output tokens' }),
  single('E', '8K x1', 8 * K, 256, [dec(150), ttft(0.6)], { note: '256 of 1024 output tokens' }),
  single('E', '32K x1', 32 * K, 256, [dec(144), ttft(1.7)], { note: '256 of 1024 output tokens' }),
  single('E', '64K x1', 64 * K, 256, [dec(142), ttft(3.2)], { note: '256 of 1024 output tokens' }),
  single('E', '96K x1', 96 * K, 256, [dec(137), ttft(5.1)], { note: '256 of 1024 output tokens' }),
  single('E', '256K x1', CTX_256K, 256, [ttft(19.9), dec(115.0)],
    { slow: true, note: 'prompt 261120; 256 output tokens' }),
  single('E', 'code 1K/128 x1', K, 128, [e2e(943)], { rounds: 3 }),
  load('E', '1K x10', K, 10, 1024, [sys(765.4)]),
  load('E', '32K x6', 32 * K, 6, 1024, [burstTtft(7.8), dec(97)]),
  load('E', '32K x10', 32 * K, 10, 1024, [sys(340.8), burstTtft(13.1), dec(79)]),
  load('E', '64K x4', 64 * K, 4, 1024, [burstTtft(11.7), dec(107)]),
  load('E', '64K x10', 64 * K, 10, 1024, [burstTtft(29.0), dec(65)], { slow: true }),
  load('E', '96K x2', 96 * K, 2, 1024, [burstTtft(9.9), dec(123)]),
  load('E', '96K x10', 96 * K, 10, 1024, [burstTtft(46.9), dec(51)], { slow: true }),
  load('E', '128K x10', 128 * K, 10, 1024, [
    dec(28.4, 'lowest speed of the grid'), meanPower(830, 'highest cell-average power of the grid, summed over 2 GPUs'),
  ],
    { slow: true }),
  load('E', '256K x10', CTX_256K, 10, 1024, [sys(90.7)], { slow: true, note: 'prompt 261120' }),
  load('E', '8K x39', 8 * K, 39, 1024, [burstTtft(10.1), dec(46)], { slow: true }),
  load('E', '8K x67', 8 * K, 67, 1024, [burstTtft(15.6), dec(21)], { slow: true }),
  load('E', 'code 1K/128 x18', K, 18, 128, [burstE2e(2125)]),
  load('E', 'code 1K/128 x26', K, 26, 128, [burstE2e(2658)]),
];

export const POINTS: Readonly<Record<string, readonly Point[]>> = {
  A: POINTS_A, B: POINTS_B, C: POINTS_C, D: POINTS_D, E: POINTS_E,
};

/** The model's prediction of a target from one virtual burst of the point's N requests. */
export function predictFromBatch(kind: Kind, run: VirtualRunResult): number {
  switch (kind) {
    case 'ttft_s':
      return mean(run.requests.map((r) => r.ttftMs)) / 1000;
    case 'decode_tps':
      return mean(decodeSpeeds(run));
    case 'system_tps':
      return run.systemTokensPerSecond;
    case 'users_x_decode_tps':
      return run.requests.length * mean(decodeSpeeds(run));
    case 'e2e_ms':
      return mean(run.requests.map((r) => r.e2eMs));
    case 'itl_ms':
      return mean(tpots(run));
    case 'power_w':
      return run.peakPowerWatts;
    case 'mean_power_w':
      return run.meanPowerWatts;
    case 'max_queue':
      throw new Error('max_queue is not a figure of one burst: use maxSafeQueue');
  }
}

/**
 * The profile as a shared-prompt point runs it: one prompt sent N times with greedy decoding gives N identical
 * sequences, which route every token to the same experts (rho = 1: the step reads one token's experts).
 */
export function identicalSequences(profile: Profile): Profile {
  return { ...profile, hardware: { ...profile.hardware, rho: 1 } };
}

/** The virtual burst of a point (shared prompts run with the prefix cache and identical routing, as published). */
export function virtualBurst(profile: Profile, p: Point, concurrency = p.concurrency): VirtualRunResult {
  if (p.sharedPrompt) {
    const options = { sharedPrefixTokens: p.context };
    return runVirtualBatch(identicalSequences(profile), p.context, p.output, concurrency, options);
  }
  return runVirtualBatch(profile, p.context, p.output, concurrency, { prefixCaching: false });
}

/** Largest burst size N (1..512) whose mean TTFT stays within the limit ("max safe queue depth"), by bisection. */
export function maxSafeQueue(profile: Profile, p: Point, limitS: number): number {
  const ok = (n: number) => mean(virtualBurst(profile, p, n).requests.map((r) => r.ttftMs)) / 1000 <= limitS;
  if (!ok(1)) return 0;
  let lo = 1;
  let hi = 512;
  if (ok(hi)) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Requests per user in a steady-state measurement: the first is warm-up, the rest are measured. */
export const STEADY_REQUESTS_PER_USER = 3;

/** The model's steady-state mean TTFT (s) or e2e (ms): closed-loop users, each user's first request left out. */
export function steadyModel(profile: Profile, p: Point, kind: 'ttft_s' | 'e2e_ms', burstE2eMs: number): number {
  const seconds = (burstE2eMs * (STEADY_REQUESTS_PER_USER + 0.5)) / 1000;
  const requests = runVirtualClosedLoop(profile, p.context, p.output, [{ users: p.concurrency, seconds }]);
  const firstOf = new Map<number, number>();
  for (const r of requests) {
    if (!firstOf.has(r.user) || r.startMs < firstOf.get(r.user)!) firstOf.set(r.user, r.startMs);
  }
  const later = requests.filter((r) => r.startMs > firstOf.get(r.user)!);
  return kind === 'ttft_s' ? mean(later.map((r) => r.ttftMs)) / 1000 : mean(later.map((r) => r.e2eMs));
}

/** Published use-case capacities (concurrent requests) of the Millstone-style reports, keyed by use-case id. */
export const PUBLISHED_CAPACITIES: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  A: { code_completion: 42, short_chatbot: 125, general_chatbot: 15, long_document: 5, coding_assistant: 2 },
  D: { code_completion: 23, short_chatbot: 48, general_chatbot: 8, long_document: 5, coding_assistant: 2 },
  E: { code_completion: 18, short_chatbot: 39, general_chatbot: 6, long_document: 4, coding_assistant: 2 },
};

function meets(l: UseCaseLimit, v: number): boolean {
  switch (l.operator) {
    case '<':
      return v < l.value;
    case '<=':
      return v <= l.value;
    case '>':
      return v > l.value;
    case '>=':
      return v >= l.value;
  }
}

/**
 * A use case's capacity as the Millstone reports measure it: one burst of N requests per step, the cell's mean
 * TTFT / e2e / decode speed against the limits; the largest N (up to maxN) before the first limit breaks.
 * The reports call the step where a limit is "just" crossed the limit itself, so this can sit one below theirs.
 */
export function burstCapacity(profile: Profile, useCaseId: string, maxN = 160): number {
  const uc = USE_CASES.find((u) => u.id === useCaseId);
  if (!uc) throw new Error(`no use case ${useCaseId}`);
  const ok = (n: number) => {
    const run = runVirtualBatch(profile, uc.contextTokens, uc.outputTokens, n, { prefixCaching: false });
    const value = (l: UseCaseLimit) =>
      l.metric === 'ttft' ? mean(run.requests.map((r) => r.ttftMs))
        : l.metric === 'e2e' ? mean(run.requests.map((r) => r.e2eMs))
          : l.metric === 'decodeSpeed' ? mean(decodeSpeeds(run))
            : mean(tpots(run));
    return uc.limits.every((l) => meets(l, value(l)));
  };
  // Capacity is monotone in N for these limits: bisect between 0 and maxN.
  if (!ok(1)) return 0;
  if (ok(maxN)) return maxN;
  let lo = 1;
  let hi = maxN;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
