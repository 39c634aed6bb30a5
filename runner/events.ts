// Typed events the runner emits; renderers (progress, tests) subscribe and never reach into the engine. Runs in Node.
import { EventEmitter } from 'node:events';

export interface ThresholdResult {
  readonly metric: string;
  readonly source: string;
  readonly ok: boolean;
}

export interface RunnerEvents {
  testStart: [{ scenarios: readonly string[]; vusMax: number }];
  scenarioStart: [{ name: string; executor: string; atMs: number }];
  scenarioEnd: [{ name: string; completed: number; interrupted: number; atMs: number }];
  iterationEnd: [{ scenario: string; vu: number; outcome: 'completed' | 'failed' | 'interrupted'; durationMs: number }];
  thresholds: [{ atMs: number; final: boolean; results: readonly ThresholdResult[] }];
  testEnd: [{ exitCode: number; durationMs: number }];
  tick: [{ atMs: number }];
}

export class RunnerEmitter extends EventEmitter<RunnerEvents> {}
