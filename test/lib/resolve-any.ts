// Test helper: resolves a plan for any script, the trace script with the Mooncake sample as its trace (the others take
// no trace). Runs in Node (vitest).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { resolvePlan, type Plan, type PlanInput, type ScriptName } from '../../lib/plan';

export const SAMPLE_TRACE = path.resolve(import.meta.dirname, '..', '..', 'examples', 'traces', 'mooncake.jsonl');

export function resolveAny(input: PlanInput, script: ScriptName): Plan {
  const withTrace = script === 'trace' && !input.trace ? { ...input, trace: { file: SAMPLE_TRACE } } : input;
  return resolvePlan(withTrace, script, (file) => readFileSync(file, 'utf8'));
}
