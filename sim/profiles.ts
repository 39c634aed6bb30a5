// Hardware/model profiles of the simulator (A-E of docs/design/simulator-model.md) and parsing of custom profile JSON.
// Runs in Node.
//
// Each profile is the calibrated parameter set of the performance model plus what the HTTP surface
// needs (served model id, context window, flavour). Units are in the field names.

import { readFileSync } from 'node:fs';
import { checkNoiseModel, DEFAULT_NOISE, type NoiseModel } from './noise';

export type Flavour = 'vllm' | 'sglang';

/** Parameters of the continuous-batching performance model (docs/design/simulator-model.md, "Step time"). */
export interface HardwareModel {
  /** HBM bandwidth in bytes per second. */
  readonly bandwidthBytesPerSecond: number;
  /** Achieved fraction of bandwidth for dense weight and KV reads. */
  readonly etaMem: number;
  readonly denseWeightBytes: number;
  readonly expertWeightBytes: number;
  /** MoE experts E and experts per token k; E = k = 1 models a dense model. */
  readonly experts: number;
  readonly topK: number;
  /** Routing overlap rho between tokens of one step (0 = independent routing). */
  readonly rho: number;
  /** Expert GEMM efficiency eta_moe = etaMax * m / (m + m0). */
  readonly etaMax: number;
  readonly m0: number;
  readonly kvBytesPerToken: number;
  /** Recurrent state read+written per decode step per sequence (hybrid attention), bytes. */
  readonly stateBytesPerSeq: number;
  /** Fixed step overhead t0, ms. */
  readonly t0Ms: number;
  /** Per-sequence step overhead tau, ms. */
  readonly tauMs: number;
  /** Linear-layer compute per token lambda = 2 P_active / F_eff, microseconds per token. */
  readonly lambdaUsPerToken: number;
  /** Prefill attention cost alpha, seconds per query-key pair. */
  readonly alphaSecondsPerPair: number;
  /** Per-request overhead o_req (HTTP, tokenisation), added to TTFT, ms. */
  readonly requestOverheadMs: number;
  /**
   * GPUs the model is split over by tensor parallelism (1 = one GPU). Bandwidth, lambda and alpha are
   * per GPU; weights, KV, state and compute are divided over the GPUs, and each step pays all-reduces.
   */
  readonly tensorParallel: number;
  /** Bytes one all-reduce moves per token of the step: hidden size x activation bytes (BF16: 2). */
  readonly allReduceBytesPerToken: number;
  /** All-reduces per step: two per layer (after attention and after the MLP/MoE block). */
  readonly allReducesPerStep: number;
  /** Achieved all-reduce bus bandwidth of the GPU-to-GPU link, bytes per second. */
  readonly linkBandwidthBytesPerSecond: number;
  /** Fixed latency of one all-reduce over the link (launch, synchronisation), microseconds. */
  readonly linkLatencyUs: number;
}

export interface SchedulerConfig {
  /** max_num_batched_tokens: the per-step token budget (chunked prefill). */
  readonly chunkTokens: number;
  readonly maxNumSeqs: number;
  readonly kvCapacityTokens: number;
  /** Tokens per KV block (vLLM default 16). */
  readonly blockSize: number;
  /**
   * 'mixed' (vLLM V1): decode tokens and prefill chunks share each step. 'prefill-first' (SGLang without
   * --enable-mixed-chunk): while any prompt is left to prefill, steps run prefill only and decoding waits,
   * and a request's first token reaches the client with its second (see docs/design/simulator-model.md,
   * "Profile E fit").
   */
  readonly policy: SchedulingPolicy;
}

export type SchedulingPolicy = 'mixed' | 'prefill-first';

export interface Profile {
  /** Selectable name: model, GPU and serving software, e.g. qwen3-coder-30b-a3b-h200-vllm. */
  readonly name: string;
  readonly letter: string;
  readonly description: string;
  /** Model id served by /v1/models and required in requests. */
  readonly model: string;
  /** Context window: prompt + max_tokens must fit (max_model_len). */
  readonly maxModelLen: number;
  readonly flavour: Flavour;
  readonly hardware: HardwareModel;
  readonly scheduler: SchedulerConfig;
  /** Power of each GPU, watts: idle, and at a fully compute-bound step. The DCGM gauge has one series per GPU. */
  readonly powerIdleWatts: number;
  readonly powerMaxWatts: number;
  /** GPU name for the DCGM gauge's modelName label. */
  readonly gpuName: string;
  /** SGLang flavour: tokens per streamed chunk (stream_interval). 1 = one chunk per step. */
  readonly streamInterval: number;
  /**
   * Step-time noise the profile runs with (sim/noise.ts), or null: exact modelled step times. Null in every
   * built-in profile; `--noise` turns it on with this model, or sim/noise.ts's DEFAULT_NOISE when null.
   */
  readonly noise: NoiseModel | null;
}

const GB = 1e9;
/** One GPU: no tensor parallelism, so no all-reduce. */
const SINGLE_GPU = {
  tensorParallel: 1, allReduceBytesPerToken: 0, allReducesPerStep: 0, linkBandwidthBytesPerSecond: 0, linkLatencyUs: 0,
} as const;
const COMMON = { etaMax: 0.85, m0: 1, tauMs: 0, ...SINGLE_GPU } as const;
const SCHED = { chunkTokens: 8192, blockSize: 16, policy: 'mixed' } as const;

/** Profiles A-E of docs/design/simulator-model.md ("Calibrated profiles"); A is the default. */
export const PROFILES: readonly Profile[] = [
  {
    name: 'qwen3-coder-30b-a3b-h200-vllm',
    letter: 'A',
    description: 'Qwen3-Coder-30B-A3B-Instruct FP8 on 1x H200 SXM, vLLM',
    model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8',
    maxModelLen: 262_144,
    flavour: 'vllm',
    hardware: {
      // Re-fitted to every published A point (docs/design/simulator-model.md, "Profile A fit"): 3.79 TB/s
      // achieved of 4.8; lambda = 2 x 3.3e9 active FLOPs / 11.5 us = 574 TFLOP/s, 29% of the FP8 dense
      // peak (routed MoE GEMMs run far below it); alpha = 786K FLOPs per query-key pair (4 x 128 x 32
      // heads x 48 layers) / 1.35e-9 s = 582 TFLOP/s, 59% of the BF16 peak, FlashAttention territory.
      ...COMMON, bandwidthBytesPerSecond: 4.8e12, etaMem: 0.79,
      denseWeightBytes: 1.5 * GB, expertWeightBytes: 29.0 * GB,
      experts: 128, topK: 8, rho: 0, kvBytesPerToken: 98_304, stateBytesPerSeq: 0, t0Ms: 4.95,
      lambdaUsPerToken: 11.5, alphaSecondsPerPair: 1.35e-9, requestOverheadMs: 58,
    },
    scheduler: { ...SCHED, maxNumSeqs: 1024, kvCapacityTokens: 1_030_000 },
    powerIdleWatts: 90,
    powerMaxWatts: 700,
    gpuName: 'NVIDIA H200',
    streamInterval: 1,
    noise: null,
  },
  {
    name: 'qwen3-coder-30b-a3b-h100pcie-vllm',
    letter: 'B',
    description: 'Qwen3-Coder-30B-A3B-Instruct FP8 on 1x H100 PCIe, vLLM',
    model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8',
    maxModelLen: 262_144,
    flavour: 'vllm',
    hardware: {
      ...COMMON, bandwidthBytesPerSecond: 2.0e12, etaMem: 0.83,
      denseWeightBytes: 1.5 * GB, expertWeightBytes: 29.0 * GB,
      experts: 128, topK: 8, rho: 0, kvBytesPerToken: 98_304, stateBytesPerSeq: 0, t0Ms: 3.4,
      lambdaUsPerToken: 14.6, alphaSecondsPerPair: 2.07e-9, requestOverheadMs: 6.5,
    },
    scheduler: { ...SCHED, maxNumSeqs: 1024, kvCapacityTokens: 420_000 },
    powerIdleWatts: 50,
    powerMaxWatts: 350,
    gpuName: 'NVIDIA H100 PCIe',
    streamInterval: 1,
    noise: null,
  },
  {
    name: 'qwen3.5-35b-a3b-h100-vllm',
    letter: 'C',
    description: 'Qwen3.5-35B-A3B FP8 on 1x H100 SXM, vLLM (hybrid attention)',
    model: 'Qwen/Qwen3.5-35B-A3B-FP8',
    maxModelLen: 262_144,
    flavour: 'vllm',
    hardware: {
      ...COMMON, bandwidthBytesPerSecond: 3.35e12, etaMem: 0.8,
      denseWeightBytes: 2.4 * GB, expertWeightBytes: 32.2 * GB,
      experts: 256, topK: 8, rho: 0, kvBytesPerToken: 20_480, stateBytesPerSeq: 63e6, t0Ms: 4.1,
      // Fitted to the report's load tables in virtual time (docs/design/simulator-model.md, "Profiles B and C").
      lambdaUsPerToken: 11.04, alphaSecondsPerPair: 2.65e-10, requestOverheadMs: 172,
    },
    // At most 90 running sequences: the "When to Scale Up" TTFTs (8.25 s at a 256 burst of 1K prompts,
    // 131 safe at 3 s) need that cap; with 1024 every prefill of that burst is done in 2.4 s.
    scheduler: { ...SCHED, maxNumSeqs: 90, kvCapacityTokens: 1_700_000 },
    powerIdleWatts: 70,
    powerMaxWatts: 700,
    gpuName: 'NVIDIA H100 80GB HBM3',
    streamInterval: 1,
    noise: null,
  },
  {
    name: 'qwen3-coder-next-h200-sglang',
    letter: 'D',
    description: 'Qwen3-Coder-Next (80B-A3B) FP8 on 1x H200 SXM, SGLang (hybrid attention)',
    model: 'Qwen/Qwen3-Coder-Next-FP8',
    maxModelLen: 262_144,
    flavour: 'sglang',
    hardware: {
      ...COMMON, bandwidthBytesPerSecond: 4.8e12, etaMem: 0.74,
      denseWeightBytes: 2.3 * GB, expertWeightBytes: 77.3 * GB,
      experts: 512, topK: 10, rho: 0, kvBytesPerToken: 24_576, stateBytesPerSeq: 151e6, t0Ms: 3.3,
      lambdaUsPerToken: 31, alphaSecondsPerPair: 3.45e-10, requestOverheadMs: 344,
    },
    scheduler: { ...SCHED, maxNumSeqs: 256, kvCapacityTokens: 1_800_000 },
    powerIdleWatts: 90,
    powerMaxWatts: 700,
    gpuName: 'NVIDIA H200',
    streamInterval: 1,
    noise: null,
  },
  {
    name: 'qwen3-coder-next-2xrtxpro6000-sglang',
    letter: 'E',
    description: 'Qwen3-Coder-Next (80B-A3B) FP8 on 2x RTX Pro 6000 Blackwell, SGLang, tensor parallel 2 over PCIe',
    model: 'Qwen/Qwen3-Coder-Next-FP8',
    maxModelLen: 262_144,
    flavour: 'sglang',
    hardware: {
      // Per GPU: 1.792 TB/s GDDR7. The model is D's (Qwen3-Coder-Next: 48 layers, hidden 2048), split in two.
      ...COMMON, bandwidthBytesPerSecond: 1.792e12, etaMem: 0.87,
      denseWeightBytes: 2.3 * GB, expertWeightBytes: 77.3 * GB,
      experts: 512, topK: 10, rho: 0.56, kvBytesPerToken: 24_576, stateBytesPerSeq: 151e6, t0Ms: 3.3,
      lambdaUsPerToken: 45.8, alphaSecondsPerPair: 6.61e-10, requestOverheadMs: 338,
      // Two all-reduces per layer of 2048 BF16 activations per token, over PCIe Gen5 x16 (no NVLink on this card).
      tensorParallel: 2, allReduceBytesPerToken: 2048 * 2, allReducesPerStep: 2 * 48,
      linkBandwidthBytesPerSecond: 40e9, linkLatencyUs: 16,
    },
    scheduler: { ...SCHED, maxNumSeqs: 256, kvCapacityTokens: 3_200_000, policy: 'prefill-first' },
    powerIdleWatts: 60,
    powerMaxWatts: 600,
    gpuName: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
    streamInterval: 1,
    noise: null,
  },
];

/** A custom profile as JSON: a built-in `base` (default A) with any fields overridden. */
export interface ProfileOverrides {
  readonly base?: string;
  readonly name?: string;
  readonly letter?: string;
  readonly description?: string;
  readonly model?: string;
  readonly maxModelLen?: number;
  readonly flavour?: Flavour;
  readonly hardware?: Partial<HardwareModel>;
  readonly scheduler?: Partial<SchedulerConfig>;
  readonly powerIdleWatts?: number;
  readonly powerMaxWatts?: number;
  readonly gpuName?: string;
  readonly streamInterval?: number;
  /** Noise on (fields not given take sim/noise.ts's defaults), or null: off. */
  readonly noise?: Partial<NoiseModel> | null;
}

export const DEFAULT_PROFILE_NAME = PROFILES[0]!.name;

/** The built-in profile with this name or letter (case-insensitive), or undefined. */
export function findProfile(name: string): Profile | undefined {
  const n = name.toLowerCase();
  return PROFILES.find((p) => p.name === n || p.letter.toLowerCase() === n);
}

/** One line per profile, for --list-profiles. */
export function renderProfileList(): string {
  return PROFILES.map(
    (p) =>
      `${p.name}${p.name === DEFAULT_PROFILE_NAME ? ' (default)' : ''}  [${p.letter}] ` +
      `${p.description}; model ${p.model}`,
  ).join('\n');
}

/** Resolves a name (built-in), a path to a JSON file, or a Profile object. Throws with a message naming what to fix. */
export function resolveProfile(spec: string | Profile | ProfileOverrides | undefined): Profile {
  if (spec === undefined) return PROFILES[0]!;
  if (typeof spec !== 'string') return parseProfile(spec, 'profile');
  const found = findProfile(spec);
  if (found) return found;
  if (spec.endsWith('.json')) {
    let text: string;
    try {
      text = readFileSync(spec, 'utf8');
    } catch (e) {
      throw new Error(`cannot read profile file ${spec}: ${(e as Error).message}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new Error(`profile file ${spec} is not valid JSON: ${(e as Error).message}`);
    }
    return parseProfile(raw, spec);
  }
  throw new Error(
    `profile "${spec}" is not one of: ${PROFILES.map((p) => p.name).join(', ')} (or a path to a .json profile)`,
  );
}

type Obj = Record<string, unknown>;

function parsePolicy(v: unknown, d: SchedulingPolicy, path: string): SchedulingPolicy {
  if (v === undefined) return d;
  if (v !== 'mixed' && v !== 'prefill-first') throw new Error(`${path}: must be "mixed" or "prefill-first"`);
  return v;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses a custom profile. It may name a built-in profile in `base` and override any field
 * (hardware and scheduler fields one by one); without `base`, profile A is the base.
 */
export function parseProfile(raw: unknown, where: string): Profile {
  if (!isObj(raw)) throw new Error(`${where}: a profile must be a JSON object`);
  const baseName = raw.base === undefined ? DEFAULT_PROFILE_NAME : raw.base;
  if (typeof baseName !== 'string' || !findProfile(baseName)) {
    throw new Error(`${where}.base: must be one of ${PROFILES.map((p) => p.name).join(', ')}`);
  }
  const base = findProfile(baseName)!;
  const known = new Set([
    'base', 'name', 'letter', 'description', 'model', 'maxModelLen', 'flavour', 'hardware', 'scheduler',
    'powerIdleWatts', 'powerMaxWatts', 'gpuName', 'streamInterval', 'noise',
    // What `npm run fit` records beside the profile it fitted (whatif/fitted-profile.ts); the simulator ignores it.
    'fit',
  ]);
  for (const k of Object.keys(raw))
    if (!known.has(k)) throw new Error(`${where}: unknown field "${k}" (allowed: ${[...known].join(', ')})`);
  const str = (k: string, d: string): string => {
    const v = raw[k];
    if (v === undefined) return d;
    if (typeof v !== 'string' || v === '') throw new Error(`${where}.${k}: must be a non-empty string`);
    return v;
  };
  const num = (o: Obj, k: string, d: number, path: string, min = 0): number => {
    const v = o[k];
    if (v === undefined) return d;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
      throw new Error(`${path}.${k}: must be a number >= ${min}`);
    }
    return v;
  };
  const sub = (k: 'hardware' | 'scheduler'): Obj => {
    const v = raw[k];
    if (v === undefined) return {};
    if (!isObj(v)) throw new Error(`${where}.${k}: must be an object`);
    const allowed = Object.keys(base[k]);
    for (const f of Object.keys(v))
      if (!allowed.includes(f)) throw new Error(`${where}.${k}: unknown field "${f}" (allowed: ${allowed.join(', ')})`);
    return v;
  };
  const hw = sub('hardware');
  const sc = sub('scheduler');
  const hardware = Object.fromEntries(
    Object.entries(base.hardware).map(([k, d]) => [k, num(hw, k, d as number, `${where}.hardware`)]),
  ) as unknown as HardwareModel;
  const scheduler: SchedulerConfig = {
    chunkTokens: num(sc, 'chunkTokens', base.scheduler.chunkTokens, `${where}.scheduler`, 1),
    maxNumSeqs: num(sc, 'maxNumSeqs', base.scheduler.maxNumSeqs, `${where}.scheduler`, 1),
    kvCapacityTokens: num(sc, 'kvCapacityTokens', base.scheduler.kvCapacityTokens, `${where}.scheduler`, 1),
    blockSize: num(sc, 'blockSize', base.scheduler.blockSize, `${where}.scheduler`, 1),
    policy: parsePolicy(sc.policy, base.scheduler.policy, `${where}.scheduler.policy`),
  };
  const flavour = str('flavour', base.flavour);
  if (flavour !== 'vllm' && flavour !== 'sglang') throw new Error(`${where}.flavour: must be "vllm" or "sglang"`);
  if (hardware.topK > hardware.experts) throw new Error(`${where}.hardware.topK: must not exceed experts`);
  if (!Number.isInteger(hardware.tensorParallel) || hardware.tensorParallel < 1) {
    throw new Error(`${where}.hardware.tensorParallel: must be an integer >= 1`);
  }
  if (hardware.tensorParallel > 1 && hardware.linkBandwidthBytesPerSecond <= 0) {
    throw new Error(`${where}.hardware.linkBandwidthBytesPerSecond: must be > 0 when tensorParallel > 1`);
  }
  return {
    name: str('name', `custom-${base.name}`),
    letter: str('letter', 'X'),
    description: str('description', `custom profile based on ${base.name}`),
    model: str('model', base.model),
    maxModelLen: num(raw, 'maxModelLen', base.maxModelLen, where, 1),
    flavour,
    hardware,
    scheduler,
    powerIdleWatts: num(raw, 'powerIdleWatts', base.powerIdleWatts, where),
    powerMaxWatts: num(raw, 'powerMaxWatts', base.powerMaxWatts, where),
    gpuName: str('gpuName', base.gpuName),
    streamInterval: Math.max(1, Math.round(num(raw, 'streamInterval', base.streamInterval, where, 1))),
    noise: parseNoise(raw.noise, base.noise, `${where}.noise`),
  };
}

/** A profile's `noise`: absent = the base's, null = off, an object = on, its missing fields from DEFAULT_NOISE. */
function parseNoise(v: unknown, base: NoiseModel | null, path: string): NoiseModel | null {
  if (v === undefined) return base;
  if (v === null) return null;
  const fields = Object.keys(DEFAULT_NOISE).join(', ');
  if (!isObj(v)) throw new Error(`${path}: must be an object (fields ${fields}) or null`);
  for (const k of Object.keys(v))
    if (!(k in DEFAULT_NOISE)) throw new Error(`${path}: unknown field "${k}" (allowed: ${fields})`);
  const field = (k: keyof NoiseModel): number => {
    const x = v[k] ?? DEFAULT_NOISE[k];
    if (typeof x !== 'number') throw new Error(`${path}.${k}: must be a number`);
    return x;
  };
  const model: NoiseModel = {
    stepJitterPercent: field('stepJitterPercent'), stallProbability: field('stallProbability'),
    stallSteps: field('stallSteps'),
  };
  checkNoiseModel(model, path);
  return model;
}
